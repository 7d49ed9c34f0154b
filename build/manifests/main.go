// Command manifests writes the package manager manifests for one release from the artifacts
// build/dist.sh put in a folder, each with the SHA-256 of the file it installs:
//
//	DIR/manifests/winget/ClankerDesktop.Clanker{,.installer,.locale.en-US}.yaml
//	    winget's multi-file manifest (schema 1.10.0) for Clanker-V-windows-amd64-setup.exe
//	DIR/manifests/scoop/clanker.json
//	    a Scoop manifest for the bare clanker-V-windows-amd64.exe
//	DIR/manifests/homebrew/clanker.rb
//	    a Homebrew cask for Clanker-V-macos-universal.dmg
//
// A manifest is written only when its artifact is in DIR: the Linux build makes the Windows
// files, the macOS runner the .dmg, and `build/dist.sh manifests DIR` rewrites them all once
// the files of one release sit together. The manifests point at the release's download
// address on GitHub (the files as they are named in DIR) and are what a submission to
// winget-pkgs, a Scoop bucket or a Homebrew tap carries; tests/dist checks their fields
// against the published schemas' rules.
//
//	go run ./build/manifests -dir dist -version 1.2.3 [-license Proprietary] [-download URL]
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Facts about Clanker that every manifest states.
const (
	// PackageIdentifier is winget's id. It is also the app user model id the installer gives
	// the Start-menu shortcut (build/windows/installer/project.nsi), so both name the same
	// publisher.app pair.
	PackageIdentifier = "ClankerDesktop.Clanker"
	// Token is the package's name for Scoop and Homebrew (and the Linux packages').
	Token     = "clanker"
	Name      = "Clanker"
	Publisher = "Clanker"
	Homepage  = "https://github.com/clanker-desktop/clanker"
	// Summary is the one line every catalogue shows (the .deb's first description line).
	Summary = "Google Messages in a window, with an AI you invite into chosen conversations"
	// Description is the longer text for catalogues that show one.
	Description = "Clanker shows Google Messages for web in its own window and lets an OpenAI-compatible " +
		"model take part, openly and only where you switch it on, in your SMS/RCS conversations. " +
		"Every message it writes starts with [clanker]."
	// WingetManifestVersion is the winget manifest schema the files follow.
	WingetManifestVersion = "1.10.0"
	// MinimumWindows is Windows 10 1809, the oldest release Microsoft's WebView2 runtime
	// supports.
	MinimumWindows = "10.0.17763.0"
	// MinimumMacOS is the oldest macOS the app is built for (README: macOS 12), as Homebrew
	// names it.
	MinimumMacOS = ":monterey"
)

// Release is what the manifests need to know about one release.
type Release struct {
	Version string
	// Download is the folder URL the release's files are downloaded from, without a slash
	// at the end.
	Download string
	License  string
}

// Artifact is one released file and its SHA-256 in lower-case hex.
type Artifact struct {
	Name   string
	SHA256 string
}

// URL is where the artifact is downloaded from.
func (r Release) URL(a Artifact) string { return r.Download + "/" + a.Name }

// Artifact names, as build/dist.sh writes them.
func setupName(v string) string { return "Clanker-" + v + "-windows-amd64-setup.exe" }
func exeName(v string) string   { return "clanker-" + v + "-windows-amd64.exe" }
func dmgName(v string) string   { return "Clanker-" + v + "-macos-universal.dmg" }

// versionPattern is build/dist.sh's check_version: digits, dots, a restricted suffix. The
// version is written into YAML, JSON and Ruby strings, so it is checked here again.
var versionPattern = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$`)

func main() {
	dir := flag.String("dir", "dist", "the folder holding the release's artifacts; the manifests go into its manifests folder")
	version := flag.String("version", "", "the release's version (build/dist.sh version)")
	license := flag.String("license", "Proprietary", "the licence the manifests declare")
	download := flag.String("download", "", "the folder URL the files are downloaded from (default: the GitHub release of tag v<version>)")
	flag.Parse()
	if err := run(*dir, *version, *license, *download, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "manifests: %v\n", err)
		os.Exit(1)
	}
}

func run(dir, version, license, download string, log io.Writer) error {
	if !versionPattern.MatchString(version) {
		return fmt.Errorf("version %q is not of the form 1.2.3 or 1.2.3-suffix / 1.2.3+suffix", version)
	}
	if download == "" {
		download = Homepage + "/releases/download/v" + version
	}
	r := Release{Version: version, Download: strings.TrimRight(download, "/"), License: license}
	out := filepath.Join(dir, "manifests")
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	files := map[string][]byte{}
	wrote := 0
	for _, m := range []struct {
		artifact string
		make     func(Release, Artifact) (map[string][]byte, error)
	}{
		{setupName(version), Winget},
		{exeName(version), Scoop},
		{dmgName(version), Cask},
	} {
		a, err := hashFile(dir, m.artifact)
		if errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(log, "manifests: no %s in %s, so no manifest for it\n", m.artifact, dir)
			continue
		}
		if err != nil {
			return err
		}
		made, err := m.make(r, a)
		if err != nil {
			return err
		}
		for name, b := range made {
			files[name] = b
		}
		wrote++
	}
	if wrote == 0 {
		return fmt.Errorf("none of the files the manifests describe is in %s", dir)
	}
	for name, b := range files {
		p := filepath.Join(out, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(log, "manifests: wrote %s\n", p)
	}
	return nil
}

func hashFile(dir, name string) (Artifact, error) {
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return Artifact{}, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return Artifact{}, fmt.Errorf("hash %s: %w", name, err)
	}
	return Artifact{Name: name, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// yamlString quotes s as a YAML double-quoted scalar (JSON's string syntax is one), so a
// version such as 1.10 stays text and nothing in a value can start a new key.
func yamlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Winget is winget's multi-file manifest for the NSIS installer: the version file, the
// installer file and the default locale's file. The installer asks for administrator rights
// itself and installs for every user (Program Files); its uninstall entry is named "Clanker"
// (project.nsi's UNINST_KEY_NAME) with the full version as DisplayVersion.
func Winget(r Release, setup Artifact) (map[string][]byte, error) {
	v := yamlString(r.Version)
	header := func(kind string) string {
		return "# yaml-language-server: $schema=https://aka.ms/winget-manifest." + kind + "." + WingetManifestVersion + ".schema.json\n" +
			"# Written by build/manifests for Clanker " + r.Version + ".\n\n"
	}
	version := header("version") +
		"PackageIdentifier: " + PackageIdentifier + "\n" +
		"PackageVersion: " + v + "\n" +
		"DefaultLocale: en-US\n" +
		"ManifestType: version\n" +
		"ManifestVersion: " + WingetManifestVersion + "\n"
	installer := header("installer") +
		"PackageIdentifier: " + PackageIdentifier + "\n" +
		"PackageVersion: " + v + "\n" +
		"InstallerLocale: en-US\n" +
		"Platform:\n- Windows.Desktop\n" +
		"MinimumOSVersion: " + MinimumWindows + "\n" +
		"InstallerType: nullsoft\n" +
		"Scope: machine\n" +
		"InstallModes:\n- interactive\n- silent\n- silentWithProgress\n" +
		"UpgradeBehavior: install\n" +
		"ElevationRequirement: elevatesSelf\n" +
		"ProductCode: " + yamlString(Name) + "\n" +
		"AppsAndFeaturesEntries:\n" +
		"- DisplayName: " + yamlString(Name) + "\n" +
		"  Publisher: " + yamlString(Publisher) + "\n" +
		"  DisplayVersion: " + v + "\n" +
		"  ProductCode: " + yamlString(Name) + "\n" +
		"Installers:\n" +
		"- Architecture: x64\n" +
		"  InstallerUrl: " + yamlString(r.URL(setup)) + "\n" +
		"  InstallerSha256: " + strings.ToUpper(setup.SHA256) + "\n" +
		"ManifestType: installer\n" +
		"ManifestVersion: " + WingetManifestVersion + "\n"
	locale := header("defaultLocale") +
		"PackageIdentifier: " + PackageIdentifier + "\n" +
		"PackageVersion: " + v + "\n" +
		"PackageLocale: en-US\n" +
		"Publisher: " + yamlString(Publisher) + "\n" +
		"PublisherUrl: " + yamlString(Homepage) + "\n" +
		"PublisherSupportUrl: " + yamlString(Homepage+"/issues") + "\n" +
		"PackageName: " + yamlString(Name) + "\n" +
		"PackageUrl: " + yamlString(Homepage) + "\n" +
		"License: " + yamlString(r.License) + "\n" +
		"ShortDescription: " + yamlString(Summary) + "\n" +
		"Description: " + yamlString(Description) + "\n" +
		"Moniker: " + Token + "\n" +
		"Tags:\n- sms\n- rcs\n- google-messages\n- ai\n- chat\n" +
		"ReleaseNotesUrl: " + yamlString(Homepage+"/releases/tag/v"+r.Version) + "\n" +
		"ManifestType: defaultLocale\n" +
		"ManifestVersion: " + WingetManifestVersion + "\n"
	base := "winget/" + PackageIdentifier
	return map[string][]byte{
		base + ".yaml":              []byte(version),
		base + ".installer.yaml":    []byte(installer),
		base + ".locale.en-US.yaml": []byte(locale),
	}, nil
}

// scoopManifest is the Scoop manifest's shape, in the order Scoop's own manifests use.
type scoopManifest struct {
	Version      string         `json:"version"`
	Description  string         `json:"description"`
	Homepage     string         `json:"homepage"`
	License      string         `json:"license"`
	Notes        string         `json:"notes"`
	Architecture scoopArchs     `json:"architecture"`
	Bin          string         `json:"bin"`
	Shortcuts    [][]string     `json:"shortcuts"`
	Checkver     scoopCheckver  `json:"checkver"`
	Autoupdate   scoopAutoArchs `json:"autoupdate"`
}

type scoopArchs struct {
	X64 scoopArch `json:"64bit"`
}

type scoopArch struct {
	URL  string `json:"url"`
	Hash string `json:"hash"`
}

type scoopCheckver struct {
	Github string `json:"github"`
}

type scoopAutoArchs struct {
	Architecture struct {
		X64 struct {
			URL string `json:"url"`
		} `json:"64bit"`
	} `json:"architecture"`
}

// Scoop is a Scoop manifest for the bare Windows exe: Scoop downloads it under the name
// clanker.exe (the "#/" suffix), puts it on the PATH and makes a Start-menu shortcut.
// Clanker keeps its data in %AppData%\Clanker, outside Scoop's folders, so an update keeps
// it without a persist entry.
func Scoop(r Release, exe Artifact) (map[string][]byte, error) {
	m := scoopManifest{
		Version:     r.Version,
		Description: Summary,
		Homepage:    Homepage,
		License:     r.License,
		Notes:       "Clanker needs Microsoft's WebView2 runtime, which Windows 11 and current Windows 10 include.",
		Bin:         Token + ".exe",
		Shortcuts:   [][]string{{Token + ".exe", Name}},
		Checkver:    scoopCheckver{Github: Homepage},
	}
	m.Architecture.X64 = scoopArch{URL: r.URL(exe) + "#/" + Token + ".exe", Hash: exe.SHA256}
	m.Autoupdate.Architecture.X64.URL = Homepage + "/releases/download/v$version/" + exeName("$version") + "#/" + Token + ".exe"
	b, err := json.MarshalIndent(m, "", "    ")
	if err != nil {
		return nil, err
	}
	return map[string][]byte{"scoop/" + Token + ".json": append(b, '\n')}, nil
}

// rubyString quotes s for Ruby: double quotes, with the characters that are special inside
// them escaped ("#{" would interpolate).
func rubyString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `#`, `\#`)
	return `"` + r.Replace(s) + `"`
}

// Cask is a Homebrew cask for the .dmg, its stanzas in the order `brew style` asks for. zap
// lists what Clanker writes for the user, as README's "What uninstalling leaves behind" does.
func Cask(r Release, dmg Artifact) (map[string][]byte, error) {
	url := strings.Replace(r.URL(dmg), r.Version, "#{version}", -1)
	var b strings.Builder
	b.WriteString("# Written by build/manifests for Clanker " + r.Version + ".\n")
	b.WriteString(`cask "` + Token + "\" do\n")
	b.WriteString("  version " + rubyString(r.Version) + "\n")
	b.WriteString("  sha256 " + rubyString(dmg.SHA256) + "\n\n")
	// The URL keeps its "#{version}" unescaped: Homebrew fills it in from the version stanza.
	b.WriteString("  url \"" + strings.ReplaceAll(strings.ReplaceAll(url, `\`, `\\`), `"`, `\"`) + "\"\n")
	b.WriteString("  name " + rubyString(Name) + "\n")
	b.WriteString("  desc " + rubyString(caskDesc) + "\n")
	b.WriteString("  homepage " + rubyString(Homepage) + "\n\n")
	b.WriteString("  depends_on macos: \">= " + MinimumMacOS + "\"\n\n")
	b.WriteString("  app \"Clanker.app\"\n\n")
	b.WriteString("  zap trash: [\n")
	for _, p := range []string{
		"~/Library/Application Support/Clanker",
		"~/Library/Caches/io.github.clanker-desktop.clanker",
		"~/Library/HTTPStorages/io.github.clanker-desktop.clanker",
		"~/Library/LaunchAgents/io.github.clanker-desktop.clanker.plist",
		"~/Library/WebKit/io.github.clanker-desktop.clanker",
	} {
		b.WriteString("    " + rubyString(p) + ",\n")
	}
	b.WriteString("  ]\nend\n")
	return map[string][]byte{"homebrew/" + Token + ".rb": []byte(b.String())}, nil
}

// caskDesc is the cask's one line: Homebrew's audit wants it short, without the app's name
// and without a full stop.
const caskDesc = "Google Messages window with an AI you invite into chosen chats"
