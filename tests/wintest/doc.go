// Package wintest holds tests that need Windows and run outside the app's own
// packages: where Clanker keeps its data on Windows (paths_test.go) and the installer's
// silent install and uninstall (installer_test.go, build tag installer). The smoke test
// of the real app on the simulator is in tests/smoke.
//
// `make test-windows` runs both under Wine on Linux; .github/workflows/windows.yml runs
// them on a real Windows runner. The package has no code of its own.
package wintest
