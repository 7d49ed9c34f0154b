// Package crash proves that a kill -9 at any moment loses no settings, modes or database
// integrity and never makes Clanker send a reply twice. The test re-executes its own binary as a
// replier process (the real engine and SQLite store behind tests/faults' Rig, a fake page that
// journals every sent text with fsync just before it counts as sent, and a model that names the
// message it answers, plus a settings save and a mode change per cycle as the settings window
// would make them), kills it with SIGKILL at seeded random points across 100 reply cycles,
// restarts it on the same data directory, and checks after every restart that the last acknowledged
// settings and mode survived, and at the end the journal and the database.
package crash
