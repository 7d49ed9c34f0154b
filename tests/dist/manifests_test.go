package dist

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/clanker-desktop/clanker/tests/testkit"
)

// The package manager manifests build/manifests writes (winget, Scoop, Homebrew), checked
// field by field against the rules their publishers state. The rules are written out below
// as data, each table with the address it was read from; nothing here reaches the network.

// field is the rule for one value, as a JSON schema states it: its kind, and for strings a
// pattern, length bounds, allowed values; for arrays the items' rule and bounds; for objects
// the rule of each allowed key and the required keys.
type field struct {
	kind     string // "string", "array", "object" or "uri" (a string that parses as an absolute URL)
	pattern  string
	notMatch string // a pattern the value must not match
	min, max int    // string length or number of items; 0 means no bound
	enum     []string
	items    *field
	unique   bool
	fields   map[string]field
	required []string
}

// check returns one sentence per way v breaks f; at names the value (winget: "Installers[0].InstallerUrl").
func (f field) check(at string, v any) []string {
	var bad []string
	fail := func(format string, a ...any) { bad = append(bad, at+": "+fmt.Sprintf(format, a...)) }
	switch f.kind {
	case "string", "uri":
		s, ok := v.(string)
		if !ok {
			fail("want text, got %T %v", v, v)
			return bad
		}
		n := len([]rune(s))
		if f.min > 0 && n < f.min || f.max > 0 && n > f.max {
			fail("%d characters, the schema allows %d to %d", n, f.min, f.max)
		}
		if f.pattern != "" && !regexp.MustCompile(f.pattern).MatchString(s) {
			fail("%q does not match %s", s, f.pattern)
		}
		if f.notMatch != "" && regexp.MustCompile(f.notMatch).MatchString(s) {
			fail("%q matches %s, which the schema excludes", s, f.notMatch)
		}
		if len(f.enum) > 0 && !contains(f.enum, s) {
			fail("%q is not one of %q", s, f.enum)
		}
		if f.kind == "uri" {
			if u, err := url.Parse(s); err != nil || u.Scheme == "" || u.Host == "" {
				fail("%q is not an absolute URL (%v)", s, err)
			}
		}
	case "array":
		list, ok := v.([]any)
		if !ok {
			fail("want a list, got %T", v)
			return bad
		}
		if f.min > 0 && len(list) < f.min || f.max > 0 && len(list) > f.max {
			fail("%d items, the schema allows %d to %d", len(list), f.min, f.max)
		}
		seen := map[string]bool{}
		for i, it := range list {
			key := fmt.Sprint(it)
			if f.unique && seen[key] {
				fail("item %v is listed twice; the schema wants unique items", it)
			}
			seen[key] = true
			if f.items != nil {
				bad = append(bad, f.items.check(fmt.Sprintf("%s[%d]", at, i), it)...)
			}
		}
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			fail("want a map, got %T", v)
			return bad
		}
		for _, r := range f.required {
			if _, ok := m[r]; !ok {
				fail("the required %s is missing", r)
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sub, ok := f.fields[k]
			if !ok {
				fail("%s is not a field the schema knows here", k)
				continue
			}
			bad = append(bad, sub.check(at+"."+k, m[k])...)
		}
	default:
		fail("the test's rule has an unknown kind %q", f.kind)
	}
	return bad
}

// Winget's rules, from the manifest schemas v1.10.0 at
// https://github.com/microsoft/winget-cli/tree/master/schemas/JSON/manifests/v1.10.0
// (manifest.version.1.10.0.json, manifest.installer.1.10.0.json,
// manifest.defaultLocale.1.10.0.json): the fields the manifests use, with their patterns,
// bounds and values, and each file's required fields. winget itself also refuses a field
// its schema does not list, so the check does too.
var (
	wgIdentifier      = field{kind: "string", pattern: `^[^\.\s\\/:\*\?"<>\|\x01-\x1f]{1,32}(\.[^\.\s\\/:\*\?"<>\|\x01-\x1f]{1,32}){1,7}$`, max: 128}
	wgVersion         = field{kind: "string", pattern: `^[^\\/:\*\?"<>\|\x01-\x1f]+$`, max: 128}
	wgLocale          = field{kind: "string", pattern: `^([a-zA-Z]{2,3}|[iI]-[a-zA-Z]+|[xX]-[a-zA-Z]{1,8})(-[a-zA-Z]{1,8})*$`, max: 20}
	wgManifestVersion = field{kind: "string", pattern: `^(0|[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])(\.(0|[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])){2}$`}
	wgURL             = field{kind: "string", pattern: `^([Hh][Tt][Tt][Pp][Ss]?)://.+$`, max: 2048}
	wgSHA256          = field{kind: "string", pattern: `^[A-Fa-f0-9]{64}$`}
	wgProductCode     = field{kind: "string", min: 1, max: 255}
	wgInstallerType   = field{kind: "string", enum: []string{"msix", "msi", "appx", "exe", "zip", "inno", "nullsoft", "wix", "burn", "pwa", "portable", "advinstExe", "advinstMsi"}}

	wingetVersion = field{kind: "object", required: []string{"PackageIdentifier", "PackageVersion", "DefaultLocale", "ManifestType", "ManifestVersion"},
		fields: map[string]field{
			"PackageIdentifier": wgIdentifier, "PackageVersion": wgVersion, "DefaultLocale": wgLocale,
			"ManifestType": {kind: "string", enum: []string{"version"}}, "ManifestVersion": wgManifestVersion,
		}}

	wingetInstallerItem = field{kind: "object", required: []string{"Architecture", "InstallerUrl", "InstallerSha256"},
		fields: map[string]field{
			"Architecture":    {kind: "string", enum: []string{"x86", "x64", "arm", "arm64", "neutral"}},
			"InstallerType":   wgInstallerType,
			"InstallerUrl":    wgURL,
			"InstallerSha256": wgSHA256,
			"Scope":           {kind: "string", enum: []string{"user", "machine"}},
			"ProductCode":     wgProductCode,
		}}

	wingetInstaller = field{kind: "object", required: []string{"PackageIdentifier", "PackageVersion", "Installers", "ManifestType", "ManifestVersion"},
		fields: map[string]field{
			"PackageIdentifier":    wgIdentifier,
			"PackageVersion":       wgVersion,
			"InstallerLocale":      wgLocale,
			"Platform":             {kind: "array", max: 2, unique: true, items: &field{kind: "string", enum: []string{"Windows.Desktop", "Windows.Universal"}}},
			"MinimumOSVersion":     {kind: "string", pattern: `^(0|[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])(\.(0|[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])){0,3}$`},
			"InstallerType":        wgInstallerType,
			"Scope":                {kind: "string", enum: []string{"user", "machine"}},
			"InstallModes":         {kind: "array", max: 3, unique: true, items: &field{kind: "string", enum: []string{"interactive", "silent", "silentWithProgress"}}},
			"UpgradeBehavior":      {kind: "string", enum: []string{"install", "uninstallPrevious", "deny"}},
			"ElevationRequirement": {kind: "string", enum: []string{"elevationRequired", "elevationProhibited", "elevatesSelf"}},
			"ProductCode":          wgProductCode,
			"AppsAndFeaturesEntries": {kind: "array", max: 128, unique: true, items: &field{kind: "object", fields: map[string]field{
				"DisplayName":    {kind: "string", min: 1, max: 256},
				"Publisher":      {kind: "string", min: 1, max: 256},
				"DisplayVersion": {kind: "string", min: 1, max: 128},
				"ProductCode":    wgProductCode,
				"UpgradeCode":    wgProductCode,
				"InstallerType":  wgInstallerType,
			}}},
			"Installers":      {kind: "array", min: 1, max: 1024, items: &wingetInstallerItem},
			"ManifestType":    {kind: "string", enum: []string{"installer"}},
			"ManifestVersion": wgManifestVersion,
		}}

	wingetDefaultLocale = field{kind: "object",
		required: []string{"PackageIdentifier", "PackageVersion", "PackageLocale", "Publisher", "PackageName", "License", "ShortDescription", "ManifestType", "ManifestVersion"},
		fields: map[string]field{
			"PackageIdentifier":   wgIdentifier,
			"PackageVersion":      wgVersion,
			"PackageLocale":       wgLocale,
			"Publisher":           {kind: "string", min: 2, max: 256},
			"PublisherUrl":        wgURL,
			"PublisherSupportUrl": wgURL,
			"PackageName":         {kind: "string", min: 2, max: 256},
			"PackageUrl":          wgURL,
			"License":             {kind: "string", min: 3, max: 512},
			"ShortDescription":    {kind: "string", min: 3, max: 256},
			"Description":         {kind: "string", min: 3, max: 10000},
			"Moniker":             {kind: "string", min: 1, max: 40},
			"Tags":                {kind: "array", max: 16, unique: true, items: &field{kind: "string", min: 1, max: 40}},
			"ReleaseNotesUrl":     wgURL,
			"ManifestType":        {kind: "string", enum: []string{"defaultLocale"}},
			"ManifestVersion":     wgManifestVersion,
		}}
)

// Scoop's rules, from its app manifest schema at
// https://github.com/ScoopInstaller/Scoop/blob/master/schema.json: every object there has
// additionalProperties false, so an unknown key is refused here as well.
var (
	scoopHash = field{kind: "string", pattern: `^([a-fA-F0-9]{64}|(sha1|sha256|sha512|md5):([a-fA-F0-9]{32}|[a-fA-F0-9]{40}|[a-fA-F0-9]{64}|[a-fA-F0-9]{128}))$`}
	// uriOrArrayOfUris: a URI with no "$" in it (a "$" is for autoupdate's templates).
	scoopURL      = field{kind: "uri", notMatch: `\$`}
	scoopManifest = field{kind: "object", required: []string{"version"}, fields: map[string]field{
		"version":     {kind: "string", pattern: `^[\w\-.+_]+$`},
		"description": {kind: "string"},
		"homepage":    {kind: "uri"},
		"license":     {kind: "string"},
		"notes":       {kind: "string"},
		"architecture": {kind: "object", fields: map[string]field{
			"64bit": {kind: "object", fields: map[string]field{"url": scoopURL, "hash": scoopHash}},
		}},
		"bin":       {kind: "string"},
		"shortcuts": {kind: "array", min: 1, items: &field{kind: "array", min: 2, max: 4, items: &field{kind: "string"}}},
		"checkver":  {kind: "object", fields: map[string]field{"github": {kind: "uri"}}},
		"autoupdate": {kind: "object", fields: map[string]field{
			"architecture": {kind: "object", fields: map[string]field{
				"64bit": {kind: "object", fields: map[string]field{"url": {kind: "uri"}}},
			}},
		}},
	}}
)

// Homebrew's cask stanzas in the order `brew style` wants them, from STANZA_GROUPS in
// https://github.com/Homebrew/brew/blob/master/Library/Homebrew/rubocops/cask/constants/stanza.rb
// (the groups a simple app cask can use), and the stanzas every cask needs, from
// https://docs.brew.sh/Cask-Cookbook ("Required stanzas": version, sha256, url, name,
// homepage, and at least one artifact; desc is expected of every new cask).
var (
	caskStanzaOrder = []string{
		"version", "sha256", "language", "url", "appcast", "name", "desc", "homepage", "livecheck",
		"auto_updates", "conflicts_with", "depends_on", "container",
		"suite", "app", "pkg", "installer", "binary", "artifact",
		"preflight", "postflight", "uninstall_preflight", "uninstall_postflight", "uninstall", "zap", "caveats",
	}
	caskRequired  = []string{"version", "sha256", "url", "name", "desc", "homepage"}
	caskArtifacts = []string{"app", "suite", "pkg", "installer", "binary", "artifact"}
)

// releaseFiles are the artifacts the manifests describe, by their role.
type releaseFiles struct {
	setup, exe, dmg string
}

func filesFor(version string) releaseFiles {
	return releaseFiles{
		setup: "Clanker-" + version + "-windows-amd64-setup.exe",
		exe:   "clanker-" + version + "-windows-amd64.exe",
		dmg:   "Clanker-" + version + "-macos-universal.dmg",
	}
}

func sha256Of(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func readYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("winget manifest: %v", err)
	}
	if !bytes.HasPrefix(b, []byte("# yaml-language-server: $schema=https://aka.ms/winget-manifest.")) {
		t.Errorf("%s does not start with the schema comment winget-pkgs expects", filepath.Base(path))
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s is not YAML: %v", filepath.Base(path), err)
	}
	return doc
}

func report(t *testing.T, what string, problems []string) {
	t.Helper()
	for _, p := range problems {
		t.Errorf("%s: %s", what, p)
	}
}

// checkWinget checks the three winget files in dir/manifests/winget against the schema rules
// and against the installer they describe.
func checkWinget(t *testing.T, dir, version, download string) {
	t.Helper()
	f := filesFor(version)
	base := filepath.Join(dir, "manifests", "winget", "ClankerDesktop.Clanker")
	ver := readYAML(t, base+".yaml")
	inst := readYAML(t, base+".installer.yaml")
	loc := readYAML(t, base+".locale.en-US.yaml")
	report(t, "winget version manifest", wingetVersion.check("version", ver))
	report(t, "winget installer manifest", wingetInstaller.check("installer", inst))
	report(t, "winget defaultLocale manifest", wingetDefaultLocale.check("defaultLocale", loc))

	// The three files describe one package version, in the manifest version they claim.
	for name, doc := range map[string]map[string]any{"version": ver, "installer": inst, "defaultLocale": loc} {
		if doc["PackageIdentifier"] != "ClankerDesktop.Clanker" || doc["PackageVersion"] != version || doc["ManifestVersion"] != "1.10.0" {
			t.Errorf("winget %s manifest: identifier %v, version %v, manifest version %v; want ClankerDesktop.Clanker, %s, 1.10.0",
				name, doc["PackageIdentifier"], doc["PackageVersion"], doc["ManifestVersion"], version)
		}
	}
	if ver["DefaultLocale"] != loc["PackageLocale"] {
		t.Errorf("winget: the version manifest names default locale %v, the locale file is %v", ver["DefaultLocale"], loc["PackageLocale"])
	}
	// The installer entry is the setup exe in this folder, at the release's address.
	items, _ := inst["Installers"].([]any)
	if len(items) != 1 {
		t.Fatalf("winget installer manifest: want one installer, got %v", inst["Installers"])
	}
	it, _ := items[0].(map[string]any)
	if got, want := it["InstallerUrl"], download+"/"+f.setup; got != want {
		t.Errorf("winget InstallerUrl = %v, want %s", got, want)
	}
	if got, want := fmt.Sprint(it["InstallerSha256"]), strings.ToUpper(sha256Of(t, filepath.Join(dir, f.setup))); got != want {
		t.Errorf("winget InstallerSha256 = %s, the installer hashes to %s", got, want)
	}
	// What the NSIS installer really does (build/windows/installer/project.nsi): it asks for
	// administrator rights itself and installs for the machine under the uninstall key
	// "Clanker", with the full version as DisplayVersion.
	if inst["InstallerType"] != "nullsoft" || inst["Scope"] != "machine" || inst["ElevationRequirement"] != "elevatesSelf" || inst["ProductCode"] != "Clanker" {
		t.Errorf("winget installer manifest: type %v, scope %v, elevation %v, product code %v; want nullsoft, machine, elevatesSelf, Clanker",
			inst["InstallerType"], inst["Scope"], inst["ElevationRequirement"], inst["ProductCode"])
	}
	arp, _ := inst["AppsAndFeaturesEntries"].([]any)
	if len(arp) != 1 || arp[0].(map[string]any)["DisplayVersion"] != version {
		t.Errorf("winget AppsAndFeaturesEntries = %v, want one entry with DisplayVersion %s", inst["AppsAndFeaturesEntries"], version)
	}
}

// checkScoop checks dir/manifests/scoop/clanker.json against Scoop's schema rules and the exe.
func checkScoop(t *testing.T, dir, version, download string) {
	t.Helper()
	f := filesFor(version)
	b, err := os.ReadFile(filepath.Join(dir, "manifests", "scoop", "clanker.json"))
	if err != nil {
		t.Fatalf("Scoop manifest: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("Scoop manifest is not JSON: %v", err)
	}
	report(t, "Scoop manifest", scoopManifest.check("clanker.json", doc))
	if doc["version"] != version {
		t.Errorf("Scoop version = %v, want %s", doc["version"], version)
	}
	arch, _ := doc["architecture"].(map[string]any)
	x64, _ := arch["64bit"].(map[string]any)
	if got, want := x64["url"], download+"/"+f.exe+"#/clanker.exe"; got != want {
		t.Errorf("Scoop url = %v, want %s", got, want)
	}
	if got, want := x64["hash"], sha256Of(t, filepath.Join(dir, f.exe)); got != want {
		t.Errorf("Scoop hash = %v, the exe hashes to %s", got, want)
	}
	if doc["bin"] != "clanker.exe" {
		t.Errorf("Scoop bin = %v, want clanker.exe (the name the url's #/ gives the download)", doc["bin"])
	}
	// autoupdate's template gives this very URL back for this version.
	au := doc["autoupdate"].(map[string]any)["architecture"].(map[string]any)["64bit"].(map[string]any)["url"]
	if got := strings.ReplaceAll(fmt.Sprint(au), "$version", version); got != x64["url"] {
		t.Errorf("Scoop autoupdate url %v gives %s for version %s, not the manifest's own url %v", au, got, version, x64["url"])
	}
}

// caskLine is one stanza line of a cask: its name and the rest of the line.
var caskLine = regexp.MustCompile(`^  ([a-z0-9_]+!?) (.*)$`)

// checkCask checks dir/manifests/homebrew/clanker.rb: the stanzas Homebrew knows, in its
// order, the required ones present, and the checksum and address of the .dmg.
func checkCask(t *testing.T, dir, version, download string) {
	t.Helper()
	f := filesFor(version)
	b, err := os.ReadFile(filepath.Join(dir, "manifests", "homebrew", "clanker.rb"))
	if err != nil {
		t.Fatalf("Homebrew cask: %v", err)
	}
	text := string(b)
	if !strings.Contains(text, "\ncask \"clanker\" do\n") || !strings.HasSuffix(text, "\nend\n") {
		t.Fatalf("Homebrew cask: want a `cask \"clanker\" do ... end` block, got:\n%s", text)
	}
	values := map[string]string{}
	var order []string
	for _, l := range strings.Split(text, "\n") {
		m := caskLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		name := m[1]
		if !contains(caskStanzaOrder, name) {
			t.Errorf("Homebrew cask: %q is not a stanza Homebrew knows", name)
			continue
		}
		order = append(order, name)
		values[name] = m[2]
	}
	pos := func(s string) int {
		for i, x := range caskStanzaOrder {
			if x == s {
				return i
			}
		}
		return -1
	}
	for i := 1; i < len(order); i++ {
		if pos(order[i]) < pos(order[i-1]) {
			t.Errorf("Homebrew cask: %s comes after %s; brew style wants the order %v", order[i], order[i-1], caskStanzaOrder)
		}
	}
	for _, r := range caskRequired {
		if _, ok := values[r]; !ok {
			t.Errorf("Homebrew cask: the required stanza %s is missing", r)
		}
	}
	artifacts := 0
	for _, a := range caskArtifacts {
		if _, ok := values[a]; ok {
			artifacts++
		}
	}
	if artifacts == 0 {
		t.Errorf("Homebrew cask: no artifact stanza (%v); a cask must install something", caskArtifacts)
	}
	unquote := func(s string) string { return strings.TrimSuffix(strings.TrimPrefix(s, `"`), `"`) }
	if got := unquote(values["version"]); got != version {
		t.Errorf("Homebrew cask: version %q, want %q", got, version)
	}
	if got, want := unquote(values["sha256"]), sha256Of(t, filepath.Join(dir, f.dmg)); got != want {
		t.Errorf("Homebrew cask: sha256 %s, the .dmg hashes to %s", got, want)
	}
	if got, want := strings.ReplaceAll(unquote(values["url"]), "#{version}", version), download+"/"+f.dmg; got != want {
		t.Errorf("Homebrew cask: url %s (version filled in), want %s", got, want)
	}
	if !strings.Contains(values["url"], "#{version}") {
		t.Errorf("Homebrew cask: the url %s does not use #{version}, so a version bump would leave it behind", values["url"])
	}
	// The Cask Cookbook's rules for desc: short, no article or app name first, no full stop.
	desc := unquote(values["desc"])
	lower := strings.ToLower(desc)
	if len(desc) > 80 || strings.HasSuffix(desc, ".") || strings.HasPrefix(lower, "a ") || strings.HasPrefix(lower, "an ") ||
		strings.HasPrefix(lower, "the ") || strings.HasPrefix(lower, "clanker") {
		t.Errorf("Homebrew cask: desc %q breaks the Cookbook's rules (at most 80 characters, no article or app name first, no full stop)", desc)
	}
	if values["app"] != `"Clanker.app"` {
		t.Errorf("Homebrew cask: app %s, want \"Clanker.app\" (the bundle build/dist.sh darwin makes)", values["app"])
	}
}

// runManifests runs the generator as build/dist.sh does.
func runManifests(t *testing.T, root, dir, version string, extra ...string) (string, error) {
	t.Helper()
	_, errOut, err := command(root, nil, "go", append([]string{"run", "./build/manifests", "-dir", dir, "-version", version}, extra...)...)
	return errOut, err
}

// The generator, on stand-in files for each artifact (what they hold does not matter to it,
// only their names and hashes): every manifest passes its publisher's rules and carries the
// hash of the file it names. The real artifacts are checked the same way by make dist-test.
func TestManifestsFollowTheirSchemas(t *testing.T) {
	root := testkit.RepoRoot(t)
	for _, version := range []string{"1.2.3", "0.0.0-dev+g1a2b3c4", "2.0.0-rc.1+5.gabcdef0.dirty"} {
		t.Run(version, func(t *testing.T) {
			dir := t.TempDir()
			f := filesFor(version)
			for _, name := range []string{f.setup, f.exe, f.dmg} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte("stand-in for "+name), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if errOut, err := runManifests(t, root, dir, version); err != nil {
				t.Fatalf("build/manifests: %v\n%s", err, errOut)
			}
			download := "https://github.com/clanker-desktop/clanker/releases/download/v" + version
			checkWinget(t, dir, version, download)
			checkScoop(t, dir, version, download)
			checkCask(t, dir, version, download)
		})
	}
}

// Only the manifests whose artifact is there are written (the Linux build has no .dmg); with
// none of them the generator fails rather than write nothing quietly; and a version that
// could break out of a manifest's quoting is refused.
func TestManifestsOnlyForWhatWasBuilt(t *testing.T) {
	root := testkit.RepoRoot(t)
	dir := t.TempDir()
	f := filesFor("1.2.3")
	for _, name := range []string{f.setup, f.exe} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	errOut, err := runManifests(t, root, dir, "1.2.3")
	if err != nil {
		t.Fatalf("build/manifests: %v\n%s", err, errOut)
	}
	if !strings.Contains(errOut, "no "+f.dmg) {
		t.Errorf("the generator should say the cask was left out for want of the .dmg, said:\n%s", errOut)
	}
	for _, p := range []string{"winget/ClankerDesktop.Clanker.installer.yaml", "scoop/clanker.json"} {
		if _, err := os.Stat(filepath.Join(dir, "manifests", p)); err != nil {
			t.Errorf("manifests/%s was not written: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "manifests", "homebrew")); err == nil {
		t.Error("a Homebrew cask was written without a .dmg to describe")
	}

	if errOut, err := runManifests(t, root, t.TempDir(), "1.2.3"); err == nil {
		t.Errorf("with no artifacts at all the generator succeeded:\n%s", errOut)
	}
	for _, bad := range []string{"1.2", `1.2.3"; rm -rf /`, "1.2.3-\n"} {
		if errOut, err := runManifests(t, root, dir, bad); err == nil {
			t.Errorf("version %q was accepted:\n%s", bad, errOut)
		}
	}
}

// The rule tables catch what they are there to catch: each broken document below must draw
// the named complaint, so a rule that stopped matching would show here.
func TestManifestRulesCatchViolations(t *testing.T) {
	installer := func(edit func(m map[string]any)) map[string]any {
		m := map[string]any{
			"PackageIdentifier": "ClankerDesktop.Clanker", "PackageVersion": "1.2.3", "ManifestType": "installer", "ManifestVersion": "1.10.0",
			"Installers": []any{map[string]any{"Architecture": "x64", "InstallerUrl": "https://example.org/a.exe", "InstallerSha256": strings.Repeat("A", 64)}},
		}
		edit(m)
		return m
	}
	for _, c := range []struct {
		name string
		doc  map[string]any
		rule field
		want string
	}{
		{"a valid installer manifest", installer(func(map[string]any) {}), wingetInstaller, ""},
		{"a field winget does not know", installer(func(m map[string]any) { m["InstallerColour"] = "blue" }), wingetInstaller, "InstallerColour is not a field"},
		{"a scope outside the enum", installer(func(m map[string]any) { m["Scope"] = "system" }), wingetInstaller, `"system" is not one of`},
		{"a missing required field", installer(func(m map[string]any) { delete(m, "Installers") }), wingetInstaller, "the required Installers is missing"},
		{"a short hash", installer(func(m map[string]any) {
			m["Installers"] = []any{map[string]any{"Architecture": "x64", "InstallerUrl": "https://example.org/a.exe", "InstallerSha256": "ABC"}}
		}), wingetInstaller, "InstallerSha256: \"ABC\" does not match"},
		{"a one-word identifier", installer(func(m map[string]any) { m["PackageIdentifier"] = "Clanker" }), wingetInstaller, "PackageIdentifier"},
		{"a Scoop url with a template in it", map[string]any{"version": "1.2.3", "architecture": map[string]any{"64bit": map[string]any{"url": "https://example.org/$version.exe"}}},
			scoopManifest, "which the schema excludes"},
		{"a Scoop shortcut with one item", map[string]any{"version": "1.2.3", "shortcuts": []any{[]any{"clanker.exe"}}}, scoopManifest, "1 items, the schema allows 2 to 4"},
		{"a Scoop version with a space", map[string]any{"version": "1.2 beta"}, scoopManifest, "does not match"},
	} {
		problems := c.rule.check("doc", c.doc)
		got := strings.Join(problems, "\n")
		switch {
		case c.want == "" && len(problems) > 0:
			t.Errorf("%s: want no complaint, got:\n%s", c.name, got)
		case c.want != "" && !strings.Contains(got, c.want):
			t.Errorf("%s: want a complaint containing %q, got:\n%s", c.name, c.want, got)
		}
	}
}
