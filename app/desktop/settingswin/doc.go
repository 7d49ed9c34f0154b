// Package settingswin is the settings window: a Wails window of its own, run in its own
// process (`clanker settings`) apart from the Messages window, so the page there can
// never reach the service bound to it. SettingsService is what its page calls; the
// running app sees every save through the store. Memory edits go through the store as
// requests that the running app carries out through its engine (see MemoryEditor), so an
// answer being computed cannot write over the user's edit. Model prices are edited as a
// typed list (engine.PriceEntry) that engine.PricesFromEntries reads; Settings.Validate
// then checks them with the same limits and sentences as `clanker config` gets.
package settingswin
