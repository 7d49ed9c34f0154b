// Package faults proves how Clanker behaves when the model server misbehaves. Its Rig wires the
// real engine, the real LLM adapter and client and the real SQLite store in front of a fake page
// that records what would be typed and sent, so a fault is played end to end through every part
// that decides what the user sees. The fault corpus (faults_test.go) is a table of every HTTP
// status with each provider's error body, broken connections, slow and hung servers, huge and
// invalid bodies and every malformed reply shape, each with the text that must be posted, the
// mode afterwards and the notification. tests/crash and tests/security reuse the Rig.
package faults
