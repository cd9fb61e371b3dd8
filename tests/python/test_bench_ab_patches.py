"""bench/ab_patches.sh --dry-run: variants checked, patches applied, macros found (no build).

Runs the script inside a throwaway git repository holding a copy of it, one source file and
patches written here, so that the project's own patches (which go stale as the kernel moves
on) do not decide the result.
"""

import os
import shutil
import subprocess

import pytest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "ab_patches.sh")

SOURCE = "".join(f"int v{i} = {i};\n" for i in range(9))

# A measurement macro's block after v1; another's at the end (apart, so both apply together).
PATCH_M = """--- a/src.h
+++ b/src.h
@@ -1,3 +1,6 @@
 int v0 = 0;
 int v1 = 1;
+#if defined(AMKL_TEST_ONE)
+int m = 4;
+#endif
 int v2 = 2;
"""
PATCH_N = """--- a/src.h
+++ b/src.h
@@ -7,3 +7,6 @@
 int v6 = 6;
 int v7 = 7;
 int v8 = 8;
+#ifdef AMKL_TEST_TWO
+int n = 5;
+#endif
"""
# Context that is not in src.h.
PATCH_STALE = """--- a/src.h
+++ b/src.h
@@ -1,2 +1,3 @@
 int x = 1;
+int y = 2;
 int z = 3;
"""


@pytest.fixture
def repo(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("no git")
    root = tmp_path / "repo"
    (root / "bench" / "patches").mkdir(parents=True)
    shutil.copy(SCRIPT, root / "bench" / "ab_patches.sh")
    (root / "src.h").write_text(SOURCE)
    for name, text in (("m", PATCH_M), ("n", PATCH_N), ("stale", PATCH_STALE)):
        (root / "bench" / "patches" / f"{name}.patch").write_text(text)
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t")
    for cmd in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "base"]):
        subprocess.run(["git", *cmd], cwd=root, env=env, check=True)
    return root


def run(repo, *args, env=None):
    return subprocess.run(["bash", "bench/ab_patches.sh", *args], cwd=repo, capture_output=True,
                          text=True, env=dict(os.environ, **(env or {})))


def test_variants_get_their_patches_macros_and_flags(repo, tmp_path):
    r = run(repo, "--dry-run", str(tmp_path / "out"), "head=", "one=m", "both=m+n:-DEXTRA")
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [x for x in r.stdout.splitlines() if x.startswith("== ")]
    assert len(lines) == 3
    assert lines[0].startswith("== head: HEAD ") and "-D" not in lines[0]
    assert "(-DAMKL_TEST_ONE)" in lines[1]
    assert "(-DEXTRA -DAMKL_TEST_ONE -DAMKL_TEST_TWO)" in lines[2]


def test_a_patch_that_no_longer_applies_stops_the_run(repo, tmp_path):
    r = run(repo, "--dry-run", str(tmp_path / "out"), "ok=m", "bad=stale")
    assert r.returncode != 0
    assert "stale.patch does not apply for bad" in r.stdout


def test_bad_variants_are_refused_before_any_work(repo, tmp_path):
    r = run(repo, "--dry-run", str(tmp_path / "out"), "one=m", "two=nosuch")
    assert r.returncode == 2 and "no bench/patches/nosuch.patch" in r.stdout
    assert "== one" not in r.stdout  # nothing was applied before the check
    r = run(repo, "--dry-run", str(tmp_path / "out"), "one=m", "no-equals-sign")
    assert r.returncode == 2 and "bad variant" in r.stdout
    r = run(repo, "--dry-run", str(tmp_path / "out"), "one=m", env={"AB_TESTS": "two"})
    assert r.returncode == 2 and "AB_TESTS names two" in r.stdout


def test_usage_without_variants(repo, tmp_path):
    r = run(repo, str(tmp_path / "out"))
    assert r.returncode == 2 and "bench/ab_patches.sh" in r.stdout
