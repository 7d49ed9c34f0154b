// Package wintest holds tests that need Windows and run outside the app's own
// packages: where Clanker keeps its data on Windows (paths_test.go), the installer's
// silent install and uninstall (installer_test.go, build tag installer) and the smoke
// test of the real app on the simulator (smoke_test.go, build tag smoke).
//
// `make test-windows` runs the first two under Wine on Linux; .github/workflows/
// windows.yml runs all three on a real Windows runner. The package has no code of its own.
package wintest
