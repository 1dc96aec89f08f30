"""Files -> plain records: the only reader of ``corpus/`` and ``exclusions/``.

The survey root is the folder holding ``corpus/taxonomy.yaml``. Its input
files are read either from the working tree (:func:`read_tree`) or from a git
revision (:func:`masrl.corpus.gitread.read_git_tree`, for ``masrl diff``) into a mapping
``{relative posix path: bytes}``; :func:`parse_tree` turns that mapping into a
:class:`Corpus` without touching the file system again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import Problem, UserError
from . import yamlio
from .releases import RELEASES, SNAPSHOTS
from .rounds import PROTOCOL, ROUND_FILES, ROUNDS, RoundFolder, read_csv, round_file

TAXONOMY = "corpus/taxonomy.yaml"
CLAIMS = "corpus/claims.yaml"
PAPERS = "corpus/papers/"
AUDITS = "corpus/audits/"
EXCLUSIONS = "exclusions/"
README = "README.md"


@dataclass
class Corpus:
    """Everything the pipeline reads, parsed but not yet validated.

    Attributes:
        taxonomy: the mapping of ``corpus/taxonomy.yaml`` (``{}`` if unreadable).
        retained: file -> record mapping, one per ``corpus/papers/*.yaml``.
        excluded: file -> record mapping, one per ``exclusions/*.yaml``.
        claims: the list under ``claims`` in ``corpus/claims.yaml`` (``[]`` if absent).
        audits: file -> audit mapping, one per ``corpus/audits/*.yaml``.
        releases: the mapping of ``corpus/releases.yaml`` (None if absent: no release yet).
        snapshots: file -> snapshot mapping, one per ``corpus/releases/*.yaml``.
        protocol: the mapping of ``corpus/protocol.yaml`` (None if absent).
        rounds: round id -> the files of ``corpus/rounds/<id>/`` (:class:`~masrl.corpus.rounds.RoundFolder`).
        audit_files: file -> mapping of every YAML file of an audit folder
            (``corpus/audits/<audit_id>/*.yaml`` and ``.../rounds/*.yaml``; see :mod:`masrl.audits`).
        readme: text of ``README.md`` (None if absent).
        docs: file -> :class:`~masrl.corpus.yamlio.Document`, for line numbers.
        problems: problems found while reading (not UTF-8, YAML errors, duplicate keys, not a mapping).
        unreadable: files that could not be read into a mapping (reported in ``problems``).
        release_tags: release name -> the ``content_sha256`` its git tag ``release-NAME`` recorded when it
            was published (:func:`masrl.corpus.gitread.release_tags`; read by ``validate`` and ``build``).
    """

    taxonomy: dict = field(default_factory=dict)
    retained: dict[str, dict] = field(default_factory=dict)
    excluded: dict[str, dict] = field(default_factory=dict)
    claims: list = field(default_factory=list)
    audits: dict[str, dict] = field(default_factory=dict)
    releases: dict | None = None
    snapshots: dict[str, dict] = field(default_factory=dict)
    protocol: dict | None = None
    rounds: dict[str, RoundFolder] = field(default_factory=dict)
    audit_files: dict[str, dict] = field(default_factory=dict)
    readme: str | None = None
    docs: dict[str, yamlio.Document] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    unreadable: set[str] = field(default_factory=set)
    release_tags: dict[str, str] = field(default_factory=dict)

    def line(self, file: str, path: tuple = ()) -> int | None:
        """1-based line of ``path`` in ``file`` (or of its nearest ancestor), if known."""
        doc = self.docs.get(file)
        return doc.line(path) if doc else None


def find_root(override: Path | None = None, start: Path | None = None) -> Path:
    """The survey root: ``override`` if given, else the nearest folder at or above
    ``start`` (default: the current directory) holding ``corpus/taxonomy.yaml``.

    Raises:
        UserError: if no such folder exists.
    """
    if override is not None:
        root = override.expanduser().resolve()
        if not (root / TAXONOMY).is_file():
            raise UserError(f"--root {override}: no {TAXONOMY} there")
        return root
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / TAXONOMY).is_file():
            return folder
    raise UserError(f"no survey root found: no {TAXONOMY} in {here} or any folder above it (use --root DIR)")


#: Marker value of an entry of a record folder that is not a record file
#: (``.yml``, a sub-folder, a FIFO): :func:`parse_tree` reports it.
NOT_A_RECORD = b"\0masrl:not-a-record\0"


def _audit_folder_file(rel: str) -> bool:
    """``corpus/audits/<id>/<name>.yaml`` or ``corpus/audits/<id>/rounds/<name>.yaml`` (an audit
    folder's data; its sheets, CSV and XLSX, are the readers' copies and not read)."""
    parts = rel[len(AUDITS):].split("/") if rel.startswith(AUDITS) else []
    if len(parts) not in (2, 3) or (len(parts) == 3 and parts[1] != "rounds"):
        return False
    return parts[-1].endswith(".yaml") and not any(p.startswith(".") for p in parts)


def _wanted(rel: str) -> bool:
    if rel in (TAXONOMY, CLAIMS, README, RELEASES, PROTOCOL) or _audit_folder_file(rel) or round_file(rel):
        return True
    for prefix in (PAPERS, AUDITS, EXCLUSIONS, SNAPSHOTS):
        if rel.startswith(prefix) and "/" not in rel[len(prefix):]:
            return not rel[len(prefix):].startswith(".")  # hidden files (editor swap files) are not records
    return False


def _read(path: Path, rel: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as err:
        raise UserError(f"cannot read {rel}: {err.strerror or err}") from err


def read_tree(root: Path) -> dict[str, bytes]:
    """Read every input file of the survey at ``root`` into ``{relative path: bytes}``.

    Entries of ``corpus/papers/``, ``corpus/audits/`` and ``exclusions/`` that
    are not regular ``*.yaml`` files map to :data:`NOT_A_RECORD` (reported,
    never silently skipped), except that a sub-folder of ``corpus/audits/`` is an
    audit folder whose YAML files are read (:func:`_read_audit_folder`); hidden
    files are ignored.

    Raises:
        UserError: if a file cannot be read (permissions).
    """
    files: dict[str, bytes] = {}
    for rel in (TAXONOMY, CLAIMS, README, RELEASES, PROTOCOL):
        if (root / rel).is_file():
            files[rel] = _read(root / rel, rel)
    files.update(_read_rounds(root))
    for folder in (PAPERS, AUDITS, EXCLUSIONS, SNAPSHOTS):
        base = root / folder
        if base.is_dir():
            with os.scandir(base) as found:  # an entry knows its type without another system call
                entries = sorted(found, key=lambda entry: entry.name)
            for entry in entries:
                rel = folder + entry.name
                if folder == AUDITS and entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."):
                    files.update(_read_audit_folder(base / entry.name, rel))
                    continue
                if not _wanted(rel):
                    continue
                regular = entry.is_file(follow_symlinks=False)
                files[rel] = _read(Path(entry.path), rel) if regular and rel.endswith(".yaml") else NOT_A_RECORD
    return files


def _read_rounds(root: Path) -> dict[str, bytes]:
    """The files of every round folder ``corpus/rounds/<id>/`` (:data:`~masrl.corpus.rounds.ROUND_FILES`;
    one that is not a regular file maps to :data:`NOT_A_RECORD`). Other entries are not read."""
    files: dict[str, bytes] = {}
    base = root / ROUNDS
    if not base.is_dir() or base.is_symlink():
        return files
    for folder in sorted(base.iterdir()):
        if folder.is_symlink() or not folder.is_dir() or folder.name.startswith("."):
            continue
        for name in ROUND_FILES:
            path, rel = folder / name, f"{ROUNDS}{folder.name}/{name}"
            if path.exists() or path.is_symlink():
                files[rel] = _read(path, rel) if path.is_file() and not path.is_symlink() else NOT_A_RECORD
    return files


def _read_audit_folder(folder: Path, rel: str) -> dict[str, bytes]:
    """The YAML files of one audit folder and of its ``rounds/`` sub-folder."""
    files: dict[str, bytes] = {}
    for path in sorted([*folder.glob("*.yaml"), *folder.glob("rounds/*.yaml")]):
        name = f"{rel}/{path.relative_to(folder).as_posix()}"
        if _wanted(name):
            regular = path.is_file() and not path.is_symlink()
            files[name] = _read(path, name) if regular else NOT_A_RECORD
    return files


def read_taxonomy(root: Path) -> dict:
    """The mapping of ``corpus/taxonomy.yaml`` alone (``{}`` if it cannot be parsed).

    Raises:
        UserError: if the file cannot be read.
    """
    return parse_tree({TAXONOMY: _read(root / TAXONOMY, TAXONOMY)}).taxonomy


#: Where the reports of each frozen release are (``reports/releases/<name>/``).
RELEASE_REPORTS = "reports/releases/"


def _mapping(corpus: Corpus, rel: str, data: bytes) -> dict | None:
    doc, problems = yamlio.parse(data, rel)
    corpus.problems.extend(problems)
    if doc is None:
        corpus.unreadable.add(rel)
        return None
    corpus.docs[rel] = doc
    if not isinstance(doc.value, dict):
        kind = "empty" if doc.value is None else f"a {type(doc.value).__name__}"
        corpus.problems.append(Problem(rel, 1, None, f"the file must hold one YAML mapping (field: value lines); it is {kind}"))
        corpus.unreadable.add(rel)
        return None
    return doc.value


def parse_tree(files: dict[str, bytes]) -> Corpus:
    """Parse the input files (from :func:`read_tree` or :func:`read_git_tree`) into a :class:`Corpus`.

    Unreadable files are recorded in ``corpus.problems`` and left out; this
    function never raises for bad user data.
    """
    corpus = Corpus()
    if TAXONOMY not in files:
        corpus.problems.append(Problem(TAXONOMY, None, None, "missing: the controlled vocabulary is required"))
    for rel in sorted(files):
        data = files[rel]
        if not _wanted(rel):
            continue  # e.g. an audit's sheets, handed in with the files a command is about to write
        found = round_file(rel)
        if found and data != NOT_A_RECORD:
            _round_file(corpus, rel, found, data)
            continue
        if data == NOT_A_RECORD:
            corpus.problems.append(Problem(rel, None, None, "not a record file: records are regular files named <key>.yaml "
                                                            "(not .yml, not a folder or a symlink)"))
            corpus.unreadable.add(rel)
            continue
        if rel == README:
            try:
                corpus.readme = data.decode("utf-8")
            except UnicodeDecodeError as err:
                line = data[: err.start].count(b"\n") + 1
                corpus.problems.append(Problem(rel, line, None, f"not valid UTF-8 (byte 0x{data[err.start]:02x}); "
                                                                "save the file as UTF-8 (masrl rewrites its paper list)"))
            continue
        if rel == PROTOCOL and _only_comments(data):
            continue  # a placeholder (masrl init writes one): no protocol until it is filled in
        value = _mapping(corpus, rel, data)
        if value is None:
            continue
        if rel == TAXONOMY:
            corpus.taxonomy = value
        elif rel == CLAIMS:
            claims: Any = value.get("claims", [])
            corpus.claims = claims if isinstance(claims, list) else []
            if not isinstance(claims, list):
                corpus.problems.append(Problem(rel, corpus.line(rel, ("claims",)), "claims", "must be a list of claims"))
        elif rel.startswith(PAPERS):
            corpus.retained[rel] = value
        elif rel.startswith(EXCLUSIONS):
            corpus.excluded[rel] = value
        elif _audit_folder_file(rel):
            corpus.audit_files[rel] = value
        elif rel.startswith(AUDITS):
            corpus.audits[rel] = value
        elif rel == RELEASES:
            corpus.releases = value
        elif rel.startswith(SNAPSHOTS):
            corpus.snapshots[rel] = value
        elif rel == PROTOCOL:
            corpus.protocol = value
    for folder in corpus.rounds.values():
        folder.missing = [name for name in ROUND_FILES if folder.path(name) not in files]
    return corpus


def _only_comments(data: bytes) -> bool:
    """Whether a YAML file holds nothing but blank lines and comments."""
    return all(not line.strip() or line.lstrip().startswith(b"#") for line in data.splitlines())


def _round_file(corpus: Corpus, rel: str, found: tuple[str, str], data: bytes) -> None:
    """One file of a round folder into ``corpus.rounds`` (YAML mapping or CSV rows)."""
    round_id, name = found
    folder = corpus.rounds.setdefault(round_id, RoundFolder(round_id))
    if name == "round.yaml":
        folder.meta = _mapping(corpus, rel, data)
        return
    header, rows, problems = read_csv(data, rel)
    corpus.problems.extend(problems)
    if problems and not header:
        corpus.unreadable.add(rel)
    folder.headers[name] = header
    folder.misshapen[name] = sum(1 for p in problems if p.line is not None and p.line > 1) if header else 0
    setattr(folder, "queue" if name == "queue.csv" else "duplicates", rows)


#: The most a file named on the command line may hold (bytes): 32 MiB, about 100,000 BibTeX
#: entries or audit rows. Reading stops there, so that ``--bibtex /dev/zero`` (or a file
#: named by mistake) is refused instead of filling the memory.
MAX_USER_FILE = 32 * 1024 * 1024


def read_user_bytes(path: Path, what: str, limit: int = MAX_USER_FILE) -> bytes:
    """Bytes of a file the user names on the command line (``--bibtex FILE``, a filled audit
    sheet), at most ``limit`` bytes (:data:`MAX_USER_FILE`).

    Raises:
        UserError: if it does not exist, is a folder, cannot be read, or holds more than ``limit`` bytes.
    """
    try:
        with path.open("rb") as handle:
            data = handle.read(limit + 1)
        if len(data) > limit:
            raise UserError(f"{what} {path}: holds more than {limit // (1024 * 1024)} MiB; masrl reads at most that "
                            "much (split the file)")
        return data
    except FileNotFoundError as err:
        raise UserError(f"{what} {path}: no such file") from err
    except IsADirectoryError as err:
        raise UserError(f"{what} {path}: is a folder, not a file") from err
    except OSError as err:
        raise UserError(f"{what} {path}: cannot be read: {err.strerror or err}") from err


def read_user_file(path: Path, what: str) -> str:
    """Text (UTF-8) of a file the user names on the command line (``--bibtex FILE``).

    Raises:
        UserError: if it does not exist, is a folder, or is not UTF-8.
    """
    data = read_user_bytes(path, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise UserError(f"{what} {path}: not valid UTF-8 (byte offset {err.start})") from err


#: Where a build keeps its figures: the pool's tree, each release's tree, and the catalogue site's copies of
#: the pool's SVGs (a check reads a damaged SVG's recorded bytes there).
FIGURE_FOLDERS = ("reports/figures", "reports/releases/*/figures", "reports/site/figures")


def read_figure_files(root: Path) -> dict[str, bytes]:
    """``{relative posix path: bytes}`` of every regular file in the figure folders of the
    report trees (:data:`FIGURE_FOLDERS`; symbolic links and unreadable files left out).

    The build reuses a figure whose manifest entry still matches its data, code and
    files instead of drawing it again (:func:`masrl.build.figures.figure_outputs`).
    """
    out: dict[str, bytes] = {}
    for pattern in FIGURE_FOLDERS:
        for folder in sorted(root.glob(pattern)):
            if folder.is_symlink() or not folder.is_dir():
                continue
            for path in sorted(folder.iterdir()):
                if path.is_symlink() or not path.is_file():
                    continue
                try:
                    out[path.relative_to(root).as_posix()] = path.read_bytes()
                except OSError:
                    continue  # unreadable: the figure is drawn again and the writer reports the file
    return out


def package_sources(package: str) -> dict[str, bytes]:
    """``{file name: bytes}`` of the ``.py`` files of an installed masrl package
    (used to fingerprint the figure-drawing code)."""
    from importlib import resources

    return {entry.name: entry.read_bytes() for entry in resources.files(package).iterdir() if entry.name.endswith(".py")}


def load(root: Path) -> Corpus:
    """:func:`read_tree` then :func:`parse_tree`."""
    return parse_tree(read_tree(root))
