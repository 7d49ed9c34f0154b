package dist

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clanker-desktop/clanker/tests/testkit"
)

// gitRepo is a throwaway repository whose state the version tests change step by step.
type gitRepo struct {
	t   *testing.T
	dir string
	env []string
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed to derive versions (install-deps.sh installs it)")
	}
	home := t.TempDir()
	r := &gitRepo{t: t, dir: t.TempDir(), env: append(withoutEnv("CLANKER_VERSION", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"),
		"HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@example.invalid",
		"GIT_COMMITTER_NAME=test", "GIT_COMMITTER_EMAIL=test@example.invalid")}
	return r
}

func (r *gitRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = r.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *gitRepo) commit(file, content string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.dir, file), []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
	r.git("add", file)
	r.git("commit", "-q", "-m", "change "+file)
}

// version runs `build/dist.sh version` on the throwaway repository, the same code path
// `make dist` takes, with extra environment entries.
func (r *gitRepo) version(root string, extra ...string) (string, string, error) {
	cmd := exec.Command("bash", filepath.Join(root, "build", "dist.sh"), "version", r.dir)
	cmd.Env = append(append([]string{}, r.env...), extra...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return strings.TrimSpace(out.String()), errOut.String(), err
}

func (r *gitRepo) wantVersion(root, want string) {
	r.t.Helper()
	got, stderr, err := r.version(root)
	if err != nil {
		r.t.Fatalf("dist.sh version failed: %v\n%s", err, stderr)
	}
	if got != want {
		r.t.Fatalf("version: expected %q, got %q (git describe: %q)", want, got,
			r.git("describe", "--tags", "--always", "--dirty", "--abbrev=7", "--match", "v[0-9]*"))
	}
}

func TestVersionIsDerivedFromGitTagsCommitsAndDirtiness(t *testing.T) {
	root := testkit.RepoRoot(t)
	r := newGitRepo(t)

	// Not a repository at all (a source tarball): the documented fallback.
	r.wantVersion(root, "0.0.0-dev")

	r.git("init", "-q", "-b", "main")
	r.commit("a.txt", "one")
	hash := r.git("rev-parse", "--short=7", "HEAD")
	// No tag, as in a shallow CI clone: a dev version that still names the commit.
	r.wantVersion(root, "0.0.0-dev+g"+hash)

	// Tags that are not versions are ignored.
	r.git("tag", "nightly")
	r.wantVersion(root, "0.0.0-dev+g"+hash)

	r.git("tag", "v1.2.3")
	r.wantVersion(root, "1.2.3")

	// Uncommitted changes are never passed off as the tagged release.
	if err := os.WriteFile(filepath.Join(r.dir, "a.txt"), []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.wantVersion(root, "1.2.3+dirty")
	r.git("checkout", "-q", "--", "a.txt")

	// Commits after a tag sort after it for dpkg and name the commit.
	r.commit("b.txt", "two")
	hash = r.git("rev-parse", "--short=7", "HEAD")
	r.wantVersion(root, "1.2.3+1.g"+hash)
	if err := os.WriteFile(filepath.Join(r.dir, "b.txt"), []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.wantVersion(root, "1.2.3+1.g"+hash+".dirty")
	r.git("checkout", "-q", "--", "b.txt")

	// A pre-release tag keeps its suffix.
	r.git("tag", "v2.0.0-rc.1")
	r.wantVersion(root, "2.0.0-rc.1")
}

func TestVersionOverrideIsUsedOnlyWhenItLooksLikeAVersion(t *testing.T) {
	root := testkit.RepoRoot(t)
	r := newGitRepo(t)

	got, stderr, err := r.version(root, "CLANKER_VERSION=3.1.4-beta.2")
	if err != nil || got != "3.1.4-beta.2" {
		t.Fatalf("CLANKER_VERSION=3.1.4-beta.2: expected that version, got %q (err %v)\n%s", got, err, stderr)
	}

	// Each of these would end up inside ldflags quoting, an NSIS !define or nfpm's YAML.
	for _, bad := range []string{"1.2", "v1.2.3", "1.2.3 ; rm -rf /", `1.2.3"`, "1.2.3-", "latest"} {
		got, stderr, err := r.version(root, "CLANKER_VERSION="+bad)
		if err == nil {
			t.Errorf("CLANKER_VERSION=%q: expected a refusal, got version %q", bad, got)
			continue
		}
		if !strings.Contains(stderr, "is not of the form") {
			t.Errorf("CLANKER_VERSION=%q: expected an explanation on stderr, got %q", bad, stderr)
		}
	}
}

// The Arch package's version keeps what the release version says, in the order pacman's
// vercmp gives versions (its manual: "1.0rc < 1.0 < 1.0.a < 1.0.1"): a pre-release runs on
// from the version without a separator, so it sorts before the release; build metadata
// follows after a dot, so a build made after a tag sorts after the tag's release, and two
// snapshots of different commits differ.
func TestArchVersionKeepsTheOrderForPacman(t *testing.T) {
	root := testkit.RepoRoot(t)
	for v, want := range map[string]string{
		"1.2.3":                       "1.2.3",
		"1.2.3-rc.1":                  "1.2.3rc.1",
		"1.2.3+3.g1a2b3c4":            "1.2.3.r3.g1a2b3c4",
		"1.2.3+3.g1a2b3c4.dirty":      "1.2.3.r3.g1a2b3c4.dirty",
		"1.2.3+dirty":                 "1.2.3.dirty",
		"0.0.0-dev":                   "0.0.0dev",
		"0.0.0-dev+g1a2b3c4":          "0.0.0dev.g1a2b3c4",
		"2.0.0-rc.1+5.gabcdef0.dirty": "2.0.0rc.1.r5.gabcdef0.dirty",
		"2.0.0-beta-2":                "2.0.0beta_2",
	} {
		got := strings.TrimSpace(mustRun(t, root, nil, "bash", "build/dist.sh", "arch-version", v))
		if got != want {
			t.Errorf("arch-version %s = %q, want %q", v, got, want)
		}
		if strings.Contains(got, "-") {
			t.Errorf("arch-version %s = %q: pacman allows no - in a version", v, got)
		}
	}
}
