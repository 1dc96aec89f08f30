"""Reading the survey's input files from git: a revision's tree (``masrl diff``), the blob ids
of a revision's release reports, and the three versions of each file a merge left unmerged
(``masrl resolve``). Like :mod:`masrl.corpus.load`, it returns ``{relative posix path: bytes}``
for :func:`masrl.corpus.load.parse_tree`; the only part of masrl that runs git.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from ..core.didyoumean import did_you_mean
from ..core.errors import UserError
from .load import CLAIMS, NOT_A_RECORD, README, RELEASE_REPORTS, TAXONOMY, _read, _wanted
from .releases import RELEASES
from .rounds import round_file


def git_error(root: Path, stderr: str) -> str:
    """One line for a failed git command: what went wrong and what to do."""
    text = " ".join(stderr.split())
    if "not a git repository" in text:
        return (f"{root} is not inside a git repository; masrl diff compares with a git revision: "
                "work in a clone of the survey (or run `git init` and commit once)")
    if "dubious ownership" in text:
        return (f"git refuses to read {root} (it belongs to another user); run "
                f"`git config --global --add safe.directory {root}` if you trust it")
    first = next((line.strip() for line in stderr.splitlines() if line.strip()), "unknown error")
    first = first.removeprefix("fatal: ").removeprefix("error: ")
    return f"git failed: {first}; run `git status` in {root} to see what git needs"


def read_git_tree(root: Path, rev: str) -> dict[str, bytes]:
    """Read the input files of the survey as they are at git revision ``rev``.

    Uses ``git ls-tree`` and one ``git cat-file --batch``; the working tree is not touched.

    Raises:
        UserError: if ``root`` is not in a git repository or ``rev`` is unknown.
    """
    def git(*args: str, data: bytes | None = None) -> bytes:
        try:
            done = subprocess.run(["git", *args], cwd=root, input=data, capture_output=True, check=False)
        except FileNotFoundError as err:
            raise UserError("git is not installed; masrl diff needs it") from err
        if done.returncode != 0:
            raise UserError(git_error(root, done.stderr.decode(errors="replace")))
        return done.stdout

    prefix = git("rev-parse", "--show-prefix").decode().strip()
    if not rev or rev.startswith("-"):
        raise UserError(f"{rev!r} is not a git revision")
    try:
        git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except UserError as err:
        names = git("for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/tags").decode(errors="replace").split()
        hint = f" (did you mean 'release-{rev}'?)" if f"release-{rev}" in names else did_you_mean(rev, names)
        raise UserError(f"unknown git revision {rev!r}{hint}: give HEAD, a branch or tag name, or a commit id") from err
    listing = git("ls-tree", "-r", "-z", "--full-name", rev, "--", ".").split(b"\0")
    objects: list[tuple[str, str]] = []
    files: dict[str, bytes] = {}
    for item in listing:
        if not item:
            continue
        meta, _, name = item.partition(b"\t")
        rel = os.fsdecode(name)
        if prefix and rel.startswith(prefix):
            rel = rel[len(prefix):]
        mode, kind, sha = meta.split()[:3]
        if kind == b"blob" and _wanted(rel):
            if mode == b"120000" or (rel not in (TAXONOMY, CLAIMS, README, RELEASES) and not rel.endswith(".yaml")
                                     and not round_file(rel)):
                files[rel] = NOT_A_RECORD  # a symlink or another kind of file in a record folder
            else:
                objects.append((rel, sha.decode()))
    files.update(zip([rel for rel, _ in objects], _blobs(git, [sha for _, sha in objects])))
    return files


def _blobs(git, shas: list[str]) -> list[bytes]:
    """The contents of the blobs ``shas``, in order, from one ``git cat-file --batch`` run by
    ``git(*args, data=...)`` (one process however many blobs).

    Raises:
        UserError: if git names one of them missing, or one is not a blob (a submodule's commit).
    """
    if not shas:
        return []
    out = git("cat-file", "--batch", data="".join(f"{sha}\n" for sha in shas).encode())
    blobs, pos = [], 0
    for sha in shas:
        header_end = out.index(b"\n", pos)
        header = out[pos:header_end].split()
        if len(header) != 3:  # "<sha> missing"
            raise UserError(f"git has no object {sha} (run `git fsck` in the repository)")
        if header[1] != b"blob":  # a submodule's commit, say: not a file's content
            raise UserError(f"git object {sha} is a {header[1].decode(errors='replace')}, not a file's content")
        size = int(header[2])
        blobs.append(out[header_end + 1 : header_end + 1 + size])
        pos = header_end + 1 + size + 1
    return blobs


#: The report trees of the frozen releases (compared by ``masrl diff``).
def _blob_id(data: bytes) -> str:
    """The git blob id of ``data`` (SHA-1 of ``blob <size>\\0`` + data), as ``git ls-tree`` prints it."""
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def release_report_blobs(root: Path, rev: str | None = None) -> dict[str, str]:
    """``{relative path: git blob id}`` of every file under ``reports/releases/``, at git revision
    ``rev`` (``git ls-tree``; a revision :func:`read_git_tree` has already resolved) or, with
    ``rev`` None, in the working tree (regular files; symbolic links left out).

    Raises:
        UserError: if git fails or a file cannot be read.
    """
    if rev is None:
        base = root / RELEASE_REPORTS
        return {p.relative_to(root).as_posix(): _blob_id(_read(p, p.relative_to(root).as_posix()))
                for p in sorted(base.rglob("*")) if p.is_file() and not p.is_symlink()} if base.is_dir() else {}
    prefix = _git(root, "rev-parse", "--show-prefix").decode().strip()
    out = {}
    for item in _git(root, "ls-tree", "-r", "-z", "--full-name", rev, "--", RELEASE_REPORTS).split(b"\0"):
        meta, _, name = item.partition(b"\t")
        if item and meta.split()[1] == b"blob":
            out[os.fsdecode(name)[len(prefix):]] = meta.split()[2].decode()
    return out


#: The message of the tag ``masrl release`` asks to make (``git tag -a release-NAME -m ...``).
TAG_MESSAGE = re.compile(r"masrl release (?P<name>\S+): content_sha256 (?P<sha>[0-9a-f]{64})\s*")


def release_tags(root: Path) -> dict[str, str]:
    """``{release name: content_sha256}`` that the git tags ``release-NAME`` of the repository at
    ``root`` recorded when each release was published (the tags ``masrl release`` asks for, whose
    message is ``masrl release NAME: content_sha256 HEX``; other tags are not read). Empty when
    ``root`` is not the top of a git clone, git is missing or fails: the files alone are then checked."""
    if not (root / ".git").exists():
        return {}
    try:
        listing = _git(root, "for-each-ref", "--format=%(refname:strip=2)%00%(contents)%00", "refs/tags/release-*")
    except UserError:
        return {}
    out = {}
    fields = listing.decode(errors="replace").split("\0")
    for tag, message in zip(fields[0::2], fields[1::2]):
        found = TAG_MESSAGE.fullmatch(message.strip())
        if found and tag.strip() == f"release-{found['name']}":
            out[found["name"]] = found["sha"]
    return out


class GitMissing(UserError):
    """git is not installed (not on PATH)."""


def _git(root: Path, *args: str, data: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=root, input=data, capture_output=True, check=False)
    except FileNotFoundError as err:
        raise GitMissing("git is not installed (not found on PATH); this command needs it") from err
    if done.returncode != 0:
        first = done.stderr.decode(errors="replace").strip().splitlines()
        raise UserError(f"git {args[0]} failed: {first[0] if first else 'no message'}")
    return done.stdout


def read_unmerged(root: Path) -> dict[str, dict[int, bytes]]:
    """The files a git merge left in conflict, relative to ``root``: ``{path: {stage: bytes}}``
    with stage 1 = common ancestor, 2 = ours, 3 = theirs (a stage is absent when that side
    has no such file). Empty when nothing is in conflict.

    Raises:
        UserError: if ``root`` is not in a git repository.
    """
    try:
        prefix = _git(root, "rev-parse", "--show-prefix").decode().strip()
    except GitMissing:
        raise
    except UserError as err:
        raise UserError(f"{root} is not in a git repository (run it in the clone where you merged)") from err
    entries: dict[str, dict[int, str]] = {}
    for item in _git(root, "ls-files", "-u", "-z", "--full-name").split(b"\0"):
        if not item:
            continue
        meta, _, name = item.partition(b"\t")
        _, sha, stage = meta.split()
        rel = os.fsdecode(name)
        if prefix and not rel.startswith(prefix):
            continue
        entries.setdefault(rel[len(prefix):], {})[int(stage)] = sha.decode()
    wanted = [(rel, stage, sha) for rel, stages in sorted(entries.items()) for stage, sha in stages.items()]
    out: dict[str, dict[int, bytes]] = {}
    for (rel, stage, _), data in zip(wanted, _blobs(lambda *args, data: _git(root, *args, data=data),
                                                    [sha for _, _, sha in wanted])):
        out.setdefault(rel, {})[stage] = data
    return out


def paths_at(root: Path, rev: str, folder: str) -> list[str]:
    """The files under ``folder`` (relative to ``root``) at git revision ``rev`` (none when it has no such folder)."""
    prefix = _git(root, "rev-parse", "--show-prefix").decode().strip()
    listing = _git(root, "ls-tree", "-r", "-z", "--name-only", "--full-name", rev, "--", folder).split(b"\0")
    return [os.fsdecode(name)[len(prefix):] for name in listing if name]


def index_lock(root: Path) -> Path | None:
    """git's index lock of the repository at ``root`` when it exists (another git runs, or one was killed
    and left it): a ``git add`` would fail. None when the index is free."""
    lock = root / _git(root, "rev-parse", "--git-path", "index.lock").decode().strip()
    return lock if lock.exists() else None


#: The git commands that stop on conflicts for a person (or ``masrl resolve``) to finish: the ref each writes
#: while it waits, its name, and the command that concludes it.
OPERATIONS = (("MERGE_HEAD", "merge", "git commit"), ("CHERRY_PICK_HEAD", "cherry-pick", "git cherry-pick --continue"),
              ("REBASE_HEAD", "rebase", "git rebase --continue"), ("REVERT_HEAD", "revert", "git revert --continue"))


def operation(root: Path) -> tuple[str, str, str | None, str] | None:
    """The git command waiting on conflicts in ``root``: ``(name, theirs, base, conclude)``, the revisions of
    the side applied and of the common ancestor (None: the side applied has none, a root commit), and the
    command that concludes it; None when none waits. For a cherry-pick or a rebase, theirs is the commit
    replayed and its parent the ancestor; for a revert, the parent of the reverted commit is "theirs"."""
    for ref, name, conclude in OPERATIONS:
        try:
            sha = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").decode().strip()
        except UserError:
            continue
        try:
            if name == "merge":
                return name, sha, _git(root, "merge-base", "HEAD", sha).decode().strip(), conclude
            parent = _git(root, "rev-parse", "--verify", "--quiet", f"{sha}^{{commit}}^").decode().strip()
        except UserError:  # no common ancestor of a merge, or a root commit replayed
            parent = None
        if name == "merge":
            return name, sha, None, conclude
        return (name, parent, sha, conclude) if name == "revert" else (name, sha, parent, conclude)
    return None


def stopped_without_operation(root: Path) -> str:
    """What git stopped in when files are in conflict and no merge, cherry-pick, rebase or revert waits
    (:func:`operation`), and how it goes on, as a clause of a sentence."""
    def exists(name: str) -> bool:
        return (root / _git(root, "rev-parse", "--git-path", name).decode().strip()).exists()

    if exists("rebase-apply/applying"):
        return "a `git am` stopped on conflicts: `git am --continue` goes on"
    if exists("SQUASH_MSG"):
        return "a `git merge --squash` stopped on conflicts: `git commit` concludes it"
    return ("no merge is in progress: after a `git stash pop` (or `apply`) that stopped on conflicts, the stash is kept "
            "until `git stash drop`")


def merge_sides(root: Path) -> tuple[dict[str, bytes], dict[str, bytes], dict[str, bytes]]:
    """The survey's input files of a merge, cherry-pick, rebase or revert waiting on conflicts
    (:func:`operation`): ``(base, ours, theirs)``, the common ancestor, ``HEAD`` and the side applied
    (:func:`read_git_tree`; a side with no revision is empty).

    Raises:
        UserError: when none is in progress.
    """
    waiting = operation(root)
    if waiting is None:
        raise UserError(f"git reports conflicts in {root}, but no merge, cherry-pick, rebase or revert is in progress "
                        f"({stopped_without_operation(root)}), so masrl cannot tell the two sides apart: resolve the "
                        "record files by hand (to keep both papers, give one a new id or key), `git add` them, then run "
                        "`masrl resolve` again for the reports")
    _, theirs, base, _ = waiting
    return tuple(read_git_tree(root, rev) if rev else {} for rev in (base, "HEAD", theirs))
