"""Is a paper already in the pool? Matching by canonical identifier, then by title.

One rule, used by ``masrl add``, ``masrl exclude`` and ``masrl validate``: two
papers are the same when they share a canonical id (:mod:`masrl.bib.identifiers`:
arXiv version, ``arXiv:`` prefix, URL form, arXiv DOI, DOI case and encoding
do not matter), or when their normalized titles (:func:`normalize_title`)
are at least :data:`TITLE_THRESHOLD` similar, unless both have an arXiv id and the ids
differ (:func:`distinct_by_id`): arXiv gives a paper one id for all its versions, so two
ids are two papers ("GPT-4 Technical Report" 2303.08774 is not "GPT-5 Technical Report");
or unless the titles' numbers differ or one of them says no where the other does not
(:func:`distinct_by_title`: "Orchestrator 1" is not "Orchestrator 2", nor "... with RL" "... without RL", nor
"Online ..." "Offline ...");
or unless both name their authors and no author of one is an author of the other
(:func:`distinct_by_authors`: "... for Traffic Signal Control" by Lovelace is not "... for Traffic
Light Control" by Hopper, nor a paper by Chen Ma one by Hao Chen).
Other schemes do not decide it: a paper's conference and journal versions have two DOIs,
and a resubmission gets a new OpenReview forum.

Title similarity is the normalized Indel similarity of rapidfuzz
(``fuzz.ratio``: 2·LCS / (len a + len b), the longest common subsequence of
characters). It is never lower than difflib's ``SequenceMatcher.ratio`` on the
same strings (difflib's matching blocks are one common subsequence, so at most
the LCS), so every pair the former difflib rule refused is still refused.

Speed: a title is normalized once. All pairs within one pool
(:func:`similar_title_pairs`, used by ``validate``) are found with two sound
filters before the exact score: lengths (a ratio of 0.9 needs the shorter
title to be at least 9/11 of the longer) and the character-count (bag)
distance, a lower bound of the Indel distance; only pairs passing both are
scored. One query against the pool (:meth:`Pool.matches`, used by ``add``)
uses rapidfuzz's C++ ``process.extract`` with the score cut-off.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from ..core.fold import name_word_forms
from .organisations import generic_word
from .identifiers import keys_of

def with_subtitle(title: str, subtitle: str) -> str:
    """A title joined with its subtitle (Crossref's ``subtitle``, biblatex's): ``Agent Swarms: Delegation Policies``;
    after a title's own closing mark without a colon (``Do Agents Help? A Study``); the title alone when it holds the
    subtitle already, or there is none."""
    title, subtitle = title.strip(), subtitle.strip()
    if not subtitle or not title or normalize_title(subtitle) in normalize_title(title):
        return title
    return f"{title} {subtitle}" if title[-1] in ":?!.;" else f"{title}: {subtitle}"


#: Titles at least this similar (normalized, 0-1) are the same paper.
TITLE_THRESHOLD = 0.9


#: A thousands separator between digits (``1,000``; ``10 000`` with a no-break or thin space; Arabic ``١٬٠٠٠``).
_THOUSANDS = re.compile(r"(?<=\d)[,\u00a0\u2009\u202f\u066c](?=\d{3}(?!\d))")


#: A decimal number (``1000.0``, ``3.50``), written without the zeros that end its fraction (``1000``, ``3.5``).
_DECIMAL = re.compile(r"(?<![\d.])(\d+)\.(\d+)(?![\d.])")


def _decimal(number: re.Match) -> str:
    fraction = number.group(2).rstrip("0")
    return f"{number.group(1)}.{fraction}" if fraction else number.group(1)


#: A language's name written with signs (C++, C#, F#), which the title's punctuation would drop.
_SIGNS = re.compile(r"(?<![^\W\d_])([A-Za-z])(\+\+|#)(?![^\W\d_])")


def _normalize_title(title: str) -> str:
    """Title reduced for comparison: thousands separators, a decimal's last zeros, LaTeX braces and math dropped, accents folded,
    lower case, punctuation removed (letters and digits of every script kept), whitespace collapsed (remembered per title in process,
    as :func:`normalize_title`: every command compares the pool's titles again)."""
    if "\\" in title or "$" in title:  # TeX: $\\alpha$ is α (not nothing), \\emph{Learned} is Learned
        from .latex import decode_latex

        title = decode_latex(title)
    title = _SIGNS.sub(lambda m: m.group(1) + ("pp" if m.group(2) == "++" else "sharp"), title)  # C++, C#: not C
    text = re.sub(r"\\[a-zA-Z]+\s*", " ", _DECIMAL.sub(_decimal, _THOUSANDS.sub("", title)))  # 1,000.0 is 1000
    text = unicodedata.normalize("NFKD", text)
    if not text.isascii():  # every script's digits as ASCII ones (١٠٠٠ is 1000), for the similarity too
        text = "".join(str(unicodedata.decimal(ch)) if ch.isdecimal() else ch for ch in text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = re.sub(r"[\W_]+", " ", text.lower())  # letters and digits of every script kept, the rest a space
    return " ".join(text.split())


#: :func:`_normalize_title`, remembered per title (a plain function underneath, so that mutation
#: testing mutates it: scripts/mutation.sh).
normalize_title = lru_cache(maxsize=16384)(_normalize_title)


@dataclass(frozen=True)
class Known:
    """One paper of the pool.

    Attributes:
        where: how messages name it (``corpus/papers/x.yaml``, ``exclusions/E003.yaml``,
            or ``entry 'k' (new.bib:12)`` for an earlier paper of the same batch).
        status: ``retained``, ``excluded`` or ``batch``.
        title: its title as written.
        keys: its canonical ids.
        forced: added with ``--force`` and a reason (a deliberate second record).
        names: its authors' names as :func:`name_words` reads them (empty when it names none).
    """

    where: str
    status: str
    title: str
    keys: frozenset[str] = frozenset()
    forced: bool = False
    norm: str = field(default="", compare=False)
    names: frozenset[Person] = field(default=frozenset(), compare=False)


@dataclass(frozen=True)
class Match:
    """Why a paper is a duplicate of ``other``: a shared canonical id (``key``) or a similar title (``similarity`` 0-1)."""

    other: Known
    key: str | None = None
    similarity: float = 0.0

    def message(self) -> str:
        """``already retained as corpus/papers/x.yaml (same arxiv 2505.19591; its title: '...')``."""
        if self.key:
            scheme, _, value = self.key.partition(":")
            why = f"same {scheme} {value}; its title: '{self.other.title}'"
        else:
            why = f"title {int(self.similarity * 100)}% similar: '{self.other.title}'"
        if self.other.status == "batch":
            return f"appears twice in this batch (also {self.other.where}: {why})"
        return f"already {self.other.status} as {self.other.where} ({why})"


class Person(NamedTuple):
    """One author's name as the author rule reads it (:func:`name_words`): the folded forms of the family
    name's words (``family``) and of the given names' (``given``, initials left out), the given names'
    initials (``initials``, ``w`` of ``Zhang, W.`` and of ``Zhang, Wei``), and the family name a Han name
    of four or more characters has when it is of one character (``single``, 林 of 林真理子), which meets
    only another name's ``family``; and the given names after the first (``middle``, García of ``Márquez,
    Gabriel García``: a First Last source reads a second surname so), which meet another name's family
    when the given names agree too; and the given names' words of one letter (``letters``, E of ``Zhang, Xiao E``),
    which meet a family name of one letter (``E, Zhang Xiao``: a source read Zhang Xiao E First Last)."""

    family: frozenset[str]
    given: frozenset[str]
    initials: frozenset[str]
    single: frozenset[str] = frozenset()
    middle: frozenset[str] = frozenset()
    letters: frozenset[str] = frozenset()

    def order(self) -> tuple:
        """The person as sorted lists: a content key's, the same in every process."""
        return (sorted(self.family), sorted(self.given), sorted(self.initials), sorted(self.single), sorted(self.middle),
                sorted(self.letters))


def name_words(authors) -> frozenset[Person]:
    """:func:`_name_words`, remembered per list of names (every command compares the pool's records again)."""
    if not isinstance(authors, (list, tuple)) or not all(isinstance(a, str) for a in authors):
        return _name_words(authors)
    return _remembered_name_words(tuple(authors))


@lru_cache(maxsize=16384)
def _remembered_name_words(authors: tuple) -> frozenset[Person]:
    return _name_words(authors)


def _name_words(authors) -> frozenset[Person]:
    """Each author as a :class:`Person`, the words of the name folded (:func:`masrl.core.fold.name_word_forms`:
    ``Müller`` meets ``Mueller`` and ``Muller``, ``Søgaard`` ``Sogaard`` and ``Soegaard``; a one-letter family
    name, Weinan E's, counts; a Han family name read as a name is read, 曾 as ``zeng``):
    :func:`distinct_by_authors` compares them.

    - A name stored ``Last, First`` gives its last name's words without particles and its words joined (``Le
      Cun`` gives ``cun`` and ``lecun``, as ``LeCun`` gives ``lecun``), joined too with a particle a source
      writing First Last left among the first names (``Cun, Yann Le`` gives ``lecun``); its first names, without
      particles, are its given names, each and joined (``Xiao-Ming`` gives ``xiao``, ``ming`` and ``xiaoming``).
    - A name written as one word in Han characters or Hangul gives its family name (:func:`_east_asian`: 张伟
      gives ``zhang`` and given ``wei``, 张小明 given ``xiaoming``, 山田太郎 ``shantian``, 欧阳娜娜 ``ouyang``,
      김민준 ``gim``).
    - Any other name without a comma (one word, an organisation) gives every word as a family name but the
      words that name an organisation's kind (:mod:`masrl.bib.organisations`: Kimi Team and Qwen Team share
      ``team`` only) and its function words (``the``, ``for``: The ATLAS Collaboration and The CMS Collaboration
      share no name), which a name stored ``Team, Kimi`` also leaves out.

    ``others`` is left out; empty for anything that is not a list of names."""
    if not isinstance(authors, (list, tuple)):
        return frozenset()
    people: set[Person] = set()
    for name in authors:
        if not isinstance(name, str) or name.strip() == "others":
            continue
        braced = name.startswith("{") and name.endswith("}")
        han, whole_given, single, middle = "", [], [], []
        if "," in name and not braced:
            last, *rest = name.split(",")
            first = rest[-1] if len(rest) < 3 else ",".join(rest[1:])  # "King, Jr., Martin": Jr. is no given name
            family = [w for w in re.split(r"[\s.{}~-]+", last) if w]
            given = [w for w in re.split(r"[\s,.{}~-]+", first) if w]
            if family and all(generic_word(w) for w in family):  # an organisation a source read First Last: "Team, Kimi"
                family, given = [w for w in given if not generic_word(w)] or family, []
            plain = [w for w in family if not _particle(w, inner=True)] or family
            joined = [*plain, "".join(family)] if len(family) > 1 else family
            spaced = next((k for k, w in enumerate(reversed(given)) if not _particle(w)), len(given))
            if 0 < spaced < len(given):  # a particle a First Last source left with the given names: "Cun, Yann Le"
                joined = [*joined, "".join([*given[-spaced:], *family])]
                given = given[:-spaced]  # ... is no given name; a particle's word alone is one ("Wang, Bin")
            family = joined
            whole_given = ["".join(given)] if len(given) > 1 else []
            # a First Last source's middle word may be a family name ("Gabriel García Márquez" is García)
            middle = [w for w in given[1:] if len(w) > 1 and not _particle(w, inner=True)]
        else:
            parts = [w for w in re.split(r"[\s,.{}~-]+", name.strip("{}")) if w]
            east = _east_asian(parts[0]) if len(parts) == 1 else None
            if east:
                family, given = east
                han = parts[0][0] if _han(parts[0][0]) and parts[0][0] in family else ""
                whole_given = [parts[0][len(family[0]):]] if len(parts[0]) > len(family[0]) + 1 else []
                single = ([parts[0][0]] if len(parts[0]) >= 4 and _han(parts[0][0]) and family[0] not in _COMPOUND_SURNAMES
                          else [])
            else:
                family, given = [w for w in parts if not generic_word(w) and w.lower() not in _FUNCTION_WORDS] or parts, []
        forms = {form for w in family for form in name_word_forms(w) if form}  # Weinan E's E counts
        if han:
            forms.update(_SURNAME_READINGS.get(han, ()))
        given_forms = [form for w in [*given, *whole_given] for form in name_word_forms(w) if form]
        person = Person(frozenset(forms), frozenset(f for f in given_forms if len(f) > 1),  # initials are not names
                        frozenset(f[0] for f in given_forms),
                        frozenset(form for w in single for form in name_word_forms(w) if form),
                        frozenset(form for w in middle for form in name_word_forms(w) if form),
                        frozenset(form for w in given for form in name_word_forms(w) if len(form) == 1))
        if person.family or person.given:
            people.add(person)
    return frozenset(people)


#: Words that join a family name (``van der Berg``, ``de la Fontaine``, ``Ortega y Gasset``, ``Oliveira Filho``,
#: ``Abdel-Rahman``, ``Ó Briain``) and are shared by unrelated people.
_PARTICLES = frozenset({"van", "von", "der", "den", "de", "la", "le", "du", "da", "di", "del", "della", "dos", "das",
                        "ter", "ten", "al", "el", "bin", "ibn", "ben", "bint", "abu", "abou", "ould", "mac", "st",
                        "los", "las", "lo", "y", "e", "i", "filho", "filha", "neto", "neta", "junior", "júnior",
                        "sobrinho", "sobrinha", "abdel", "abdul", "abd", "ait", "bou", "ó", "o", "ní", "ni", "nic", "ua",
                        "giolla", "in", "t", "op", "zu", "ap", "verch", "ferch"})


def _particle(word: str, inner: bool = False) -> bool:
    """Whether a word is a particle of a family name (``Le`` of ``Cun, Yann Le``, ``'t`` of ``in 't Veld``); among the
    given names (not ``inner``, a word of the family name itself) a one-letter particle only in lower case (``e`` of
    ``Silva, Artur Costa e``, never the initial ``E.``)."""
    bare = word.lower().strip("'’‘")
    return bare in _PARTICLES and (inner or len(bare) > 1 or word.islower())


#: Words of an organisation's name that join its other words (The ATLAS Collaboration, Allen Institute for AI), shared
#: by unrelated organisations as their kind's words are.
_FUNCTION_WORDS = frozenset({"the", "of", "for", "and", "on", "in", "at", "a", "an", "to", "&", "und", "et", "des", "der",
                             "die", "das", "de", "la", "le", "les", "du"})


#: Han family names read otherwise than their first reading, which transliteration gives (曾 as a name is Zeng,
#: not Ceng).
_SURNAME_READINGS = {"曾": ("zeng",), "覃": ("qin",), "单": ("shan",), "單": ("shan",), "解": ("xie",), "区": ("ou",),
                     "區": ("ou",), "仇": ("qiu",), "查": ("zha",), "乐": ("yue",), "樂": ("yue",), "朴": ("piao", "park"),
                     "盖": ("ge",), "蓋": ("ge",), "翟": ("zhai",), "缪": ("miao",), "繆": ("miao",), "尉": ("yu",),
                     "藏": ("zang",), "长": ("chang",), "長": ("chang",), "重": ("chong",), "员": ("yun",), "沈": ("shen",),
                     "种": ("chong",), "秘": ("bi",), "万": ("wan", "mo")}


#: Surnames of two characters (Chinese, and Korean in Hangul): such a name's family name is never its first character alone.
_COMPOUND_SURNAMES = frozenset({"欧阳", "歐陽", "司马", "司馬", "司徒", "诸葛", "諸葛", "上官", "东方", "東方", "皇甫", "令狐",
                                "慕容", "尉迟", "尉遲", "公孙", "公孫", "夏侯", "长孙", "長孫", "宇文", "轩辕", "軒轅",
                                "独孤", "獨孤", "端木", "南宫", "南宮", "西门", "西門", "钟离", "鍾離", "澹台", "澹臺",
                                "申屠", "万俟", "呼延", "闻人", "聞人", "百里", "东郭", "東郭", "左丘", "拓跋",
                                "남궁", "황보", "제갈", "선우", "독고", "사공", "서문", "동방", "어금", "망절"})

def _east_asian(word: str) -> tuple[list[str], list[str]] | None:
    """``(family, given)`` of a name written as one word in Han characters or Hangul, or None: a compound
    surname (:data:`_COMPOUND_SURNAMES`) is the family name; a Korean name's first syllable; a Han name of
    two or three characters its first character, or (three, a Japanese name) its first two; of four or more
    its first two (a Japanese family name, 山田 of 山田太郎), with every character among its other words,
    so that a family name of one character (林 of 林真理子) still meets itself."""
    if len(word) < 2:
        return None
    if all(_han(ch) for ch in word):
        if word[:2] in _COMPOUND_SURNAMES:
            return [word[:2]], list(word[2:])
        if len(word) >= 4:
            return [word[:2]], list(word)
        return ([word[0]] if len(word) == 2 else [word[0], word[:2]]), list(word[1:])
    if all("\uac00" <= ch <= "\ud7a3" for ch in word):
        size = 2 if word[:2] in _COMPOUND_SURNAMES else 1
        return [word[:size]], [word[size:]] if word[size:] else []
    return None


def _han(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" or "\U00020000" <= ch <= "\U0003134f"


def distinct_by_authors(a: frozenset[Person], b: frozenset[Person]) -> bool:
    """Whether two papers' authors (:func:`name_words`) prove them distinct: both name authors, and no
    author of one is an author of the other. Two names are one author when they share a family name, or when
    each one's family name is the other's given name (a source that reads "Zhang Wei" as given name first
    still meets "Zhang, Wei"; "Wei, Zhang" meets "Zhang, W." too). "Wang, Wei" and "Zhang, Wei", 张伟 and
    李伟, share only a given name; "Ma, Chen" and "Chen, Hao" share a word that is one's given name and the
    other's family name: two authors."""
    if not a or not b:
        return False
    return not any(_one_author(p, q) for p in a for q in b)


def _one_author(p: Person, q: Person) -> bool:
    if p.family & q.family or p.single & q.family or q.single & p.family:
        return True
    if (p.middle & q.family or q.middle & p.family) and _given_agree(p, q):  # García, Gabriel; Márquez, Gabriel García
        return True
    by_name_p, by_name_q = bool(p.family & (q.given | q.letters)), bool(q.family & (p.given | p.letters))
    return (by_name_p and (by_name_q or _by_initial(q, p))) or (by_name_q and _by_initial(p, q))


def _given_agree(p: Person, q: Person) -> bool:
    """Whether two names share a given name, or an initial where one gives only initials."""
    return bool(p.given & q.given) or ((not p.given or not q.given) and bool(p.initials & q.initials))


def _by_initial(p: Person, q: Person) -> bool:
    """Whether ``q``, who gives only initials, has the initial of ``p``'s family name among them."""
    return not q.given and any(form[0] in q.initials for form in p.family)


def distinct_by_id(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> bool:
    """Whether two papers' canonical ids (:func:`masrl.bib.identifiers.keys_of`) prove them
    distinct: both have an arXiv id and they share none."""
    arxiv_a = {k for k in a if k.startswith("arxiv:")}
    arxiv_b = {k for k in b if k.startswith("arxiv:")}
    return bool(arxiv_a and arxiv_b and not arxiv_a & arxiv_b)


#: Words whose presence turns a title into another paper's ("... with RL" and "... without RL"); a word that
#: begins with "non" (after 3 more letters: not "none") says no as "non" does, so "Non-Stationary" (two words
#: once normalized) and "Nonstationary" say it alike.
_NEGATIONS = frozenset({"no", "not", "non", "without", "cannot", "never", "nor", "neither", "nothing", "none"})
#: A Roman numeral (``ii``, ``xiv``, ``mmxxvi``; ``Ⅱ`` is ``ii`` once normalized), which numbers the
#: parts of a series. ``i`` alone is the pronoun more often than part one: it counts as a numeral only
#: after a word that numbers (``part``, ``volume`` ...) or as the title's last word.
_ROMAN = re.compile(r"(?=[mdclxvi])m{0,4}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})")
_NUMBERING = frozenset({"part", "vol", "volume", "chapter", "book", "section", "phase", "stage", "no", "task", "subtask",
                        "track", "model", "appendix", "type", "plan", "group", "branch", "experiment", "study", "case",
                        "scenario", "option", "version", "level", "round", "team", "setting"})


#: Numbers written in words: ordinals count wherever they stand ("First-Order", "Second-Order"), cardinals after a word
#: that numbers ("Part One").
_ORDINALS = {w: n for n, w in enumerate("first second third fourth fifth sixth seventh eighth ninth tenth".split(), 1)}
_CARDINALS = {w: n for n, w in enumerate("one two three four five six seven eight nine ten eleven twelve".split(), 1)}


_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}


def _roman_value(word: str) -> int:
    values = [_ROMAN_VALUES[ch] for ch in word]
    return sum(-v if k + 1 < len(values) and v < values[k + 1] else v for k, v in enumerate(values))


@lru_cache(maxsize=16384)
def _marks(norm: str) -> tuple:
    """The title's numbers in order, by value (``2``, ``٢``, ``II``, ``Second`` and ``Part Two`` are 2; ``1,000`` was
    made ``1000`` by :func:`normalize_title`; a part's letter counts as its number), and how many words say no."""
    words = norm.split()
    numbers = []  # the digits are ASCII by now (normalize_title)
    for k, w in enumerate(words):
        numbered = k > 0 and words[k - 1] in _NUMBERING
        if _ROMAN.fullmatch(w) and (w != "i" or k == len(words) - 1 or numbered):
            numbers.append(_roman_value(w))
        elif w in _ORDINALS or (numbered and w in _CARDINALS):  # "Second-Order", "Part Two": 2
            numbers.append(_ORDINALS.get(w) or _CARDINALS[w])
        elif numbered and len(w) == 1 and w.isalpha():  # "Part A", "Part B": a part's letter
            numbers.append(-ord(w))
        else:
            numbers += (int(run) for run in re.findall(r"\d+", w))
    return tuple(numbers), sum(w in _NEGATIONS or (w.startswith("non") and len(w) > 5)
                               or (w == "t" and k > 0 and words[k - 1].endswith("n"))  # don't, can't: "don t", "can t"
                               for k, w in enumerate(words))


def distinct_by_title(a: str, b: str) -> bool:
    """Whether two normalized titles name two papers however similar they are: their numbers differ
    (``Orchestrator 1`` and ``Orchestrator 2``, ``GPT-3`` and ``GPT-4``, ``Part XI`` and ``Part XII``, in
    any script's digits; ``GPT4`` and ``GPT-4``, ``1,000`` and ``1000``, ``Part II`` and ``Part 2`` are the same),
    one of them says no where the other does not, or a word of one is the opposite of a word of the other
    (:func:`_opposites`: ``Online`` and ``Offline``, ``Model-Based`` and ``Model-Free``)."""
    if _marks(a) != _marks(b):
        return True
    if a.replace(" ", "") == b.replace(" ", ""):  # Non-Stationary and Nonstationary: the same words, written apart
        return False
    words_a, words_b = Counter(a.split()), Counter(b.split())
    only_a, only_b = list((words_a - words_b).elements()), list((words_b - words_a).elements())
    if any(_opposites(x, y) for x in only_a for y in only_b):
        return True
    if len(only_a) == 1 and len(only_b) == 1 and _other_word(only_a[0], only_b[0]):  # Extrinsic and Intrinsic
        return True
    for longer, extra, shorter in ((a, only_a, only_b), (b, only_b, only_a)):  # Weighted QMIX: ... and QMIX: ...
        if extra and not shorter and longer.split()[0] in extra and longer.split()[0] not in _FUNCTION_WORDS:
            return True
    return False


def _other_word(x: str, y: str) -> bool:
    """Whether two words a title has in one place name different things though neither is the other's opposite: a
    letter of its own (α and β, C and C++ written Cpp) that is no number (the titles' numbers decide those). Two
    longer words (Signal and Light) may be one thing said two ways: they leave the title one paper's."""
    if any(w.isdigit() or w in _CARDINALS or w in _ORDINALS or _ROMAN.fullmatch(w) for w in (x, y)):
        return False  # a number: the titles' numbers decide (Part Two is Part 2)
    return (len(x) == 1 or len(y) == 1) and x != y and not {x, y} <= _FUNCTION_WORDS


#: Prefixes that turn a word into its opposite (asynchronous, decentralized, unsupervised, impossible, nonlinear).
_NEGATING = ("a", "an", "de", "dis", "in", "im", "il", "ir", "un", "non", "anti", "counter")
#: Prefixes, or whole words, that stand for opposites before the same rest (online and offline, explicit and implicit,
#: homogeneous and heterogeneous, single-agent and multi-agent, on-policy and off-policy).
_SWAPS = (("on", "off"), ("ex", "im"), ("homo", "hetero"), ("intra", "inter"), ("over", "under"), ("pre", "post"),
          ("single", "multi"), ("mono", "multi"), ("uni", "multi"), ("in", "out"), ("max", "min"), ("up", "down"),
          ("incr", "decr"), ("ex", "in"))
#: Words that are each other's opposites without a shared stem.
_ANTONYMS = frozenset(frozenset(pair) for pair in (
    ("based", "free"), ("cooperative", "competitive"), ("dense", "sparse"), ("positive", "negative"), ("global", "local"),
    ("static", "dynamic"), ("discrete", "continuous"), ("deterministic", "stochastic"), ("short", "long"),
    ("small", "large"), ("fast", "slow"), ("open", "closed"), ("white", "black"), ("success", "failure"),
    ("best", "worst"), ("strong", "weak"), ("hard", "soft"), ("early", "late"), ("high", "low"), ("more", "less"),
    ("increasing", "decreasing"), ("before", "after"), ("internal", "external"), ("shallow", "deep"),
    ("active", "passive"), ("serial", "parallel"), ("sequential", "parallel"), ("optimistic", "pessimistic"),
    ("forward", "backward"), ("benign", "malicious"), ("honest", "deceptive"), ("cooperation", "competition"),
    ("upper", "lower"), ("good", "bad"), ("better", "worse"), ("zero", "general"), ("helps", "hurts"), ("help", "hurt"),
    ("true", "false"), ("right", "wrong"), ("easy", "hard"), ("simple", "complex"), ("same", "different"),
    ("win", "lose"), ("wins", "loses"), ("winning", "losing"), ("gain", "loss"), ("gains", "losses"), ("rise", "fall"),
    ("accept", "reject"), ("always", "never"), ("majority", "minority"), ("attack", "defense"), ("attacks", "defenses"),
    ("offensive", "defensive"), ("many", "few"), ("more", "fewer"), ("most", "least"), ("top", "bottom"),
    ("old", "new"), ("past", "future"), ("real", "fake"), ("real", "synthetic"), ("private", "public"),
    ("light", "heavy"), ("cheap", "expensive"), ("lead", "follow"), ("leader", "follower"), ("leaders", "followers"),
    ("men", "women"), ("man", "woman"), ("full", "partial"), ("fully", "partially"),
    ("training", "inference"), ("shared", "separate"), ("shared", "independent"), ("fully", "mixed"),
    ("centralised", "decentralized"), ("centralized", "decentralised")))


def _opposites(x: str, y: str) -> bool:
    """Whether two words (lower case) say opposite things: an antonym (:data:`_ANTONYMS`), a word and itself with a
    negating prefix (:data:`_NEGATING`, the rest of four letters or more), or one rest after two opposite prefixes
    (:data:`_SWAPS`, the rest of three letters or more, or none: ``on``/``off``)."""
    if frozenset((x, y)) in _ANTONYMS:
        return True
    for short, long in ((x, y), (y, x)):
        if len(short) >= 4 and any(long == prefix + short for prefix in _NEGATING):
            return True
    for p, q in _SWAPS:
        for u, v in ((x, y), (y, x)):
            rest = u[len(p):]
            if u.startswith(p) and v == q + rest and (len(rest) >= 3 or not rest):
                return True
    return False


def may_be_one_paper(a: Known, b: Known) -> bool:
    """Whether two records can be one paper as a record is corrected over time: a shared canonical id, or
    titles at least :data:`TITLE_THRESHOLD` similar and not told apart by their numbers or a negation
    (:func:`distinct_by_title`; a corrected title keeps its ids, a corrected id its title). False only when
    both differ: two papers (True when either has no title to judge by)."""
    from rapidfuzz import fuzz

    if a.keys & b.keys or not a.norm or not b.norm:
        return True
    return (fuzz.ratio(a.norm, b.norm) >= TITLE_THRESHOLD * 100 and not distinct_by_title(a.norm, b.norm)
            and not distinct_by_authors(a.names, b.names))


def known_records(corpus) -> list[Known]:
    """Every retained and excluded record of a :class:`masrl.corpus.load.Corpus` as :class:`Known`, sorted by file."""
    return [record_known(file, status, rec) for status, records in (("retained", corpus.retained), ("excluded", corpus.excluded))
            for file, rec in sorted(records.items())]


def record_known(where: str, status: str, rec: dict) -> Known:
    """A retained (``title``) or excluded (``screening_label``) record as a :class:`Known`."""
    ids = rec.get("identifiers") if isinstance(rec.get("identifiers"), dict) else {}
    title = rec.get("title" if status == "retained" else "screening_label")
    return make_known(where, status, title if isinstance(title, str) else "", ids, bool(rec.get("forced")),
                      rec.get("authors"))


def make_known(where: str, status: str, title: str, identifiers: dict | None, forced: bool = False,
               authors=None) -> Known:
    """A :class:`Known` with its canonical ids, normalized title and its authors' name words computed once."""
    return Known(where, status, title, frozenset(keys_of(identifiers)), forced, normalize_title(title), name_words(authors))


class Pool:
    """The papers a new paper is compared with; grows as a batch is accepted."""

    def __init__(self, items: list[Known] = ()):
        self.items: list[Known] = []
        self.by_key: dict[str, list[int]] = {}
        self.titles: list[str] = []
        for item in items:
            self.add(item)

    def add(self, item: Known) -> None:
        """Add one paper (after it was accepted)."""
        index = len(self.items)
        self.items.append(item)
        self.titles.append(item.norm)
        for key in item.keys:
            self.by_key.setdefault(key, []).append(index)

    def matches(self, title: str, identifiers: dict | None, authors=None) -> list[Match]:
        """Every paper of the pool this one duplicates, in pool order; empty when it is new.

        A paper sharing a canonical id is named once, with the first shared id;
        otherwise a title at least :data:`TITLE_THRESHOLD` similar is a match, unless the
        ids, the titles' numbers or the authors prove the two distinct.
        """
        from rapidfuzz import fuzz, process

        mine, names = keys_of(identifiers), name_words(authors)
        found: dict[int, Match] = {}
        for key in sorted(mine):
            for index in self.by_key.get(key, []):
                found.setdefault(index, Match(self.items[index], key=key))
        norm = normalize_title(title)
        if norm:
            hits = process.extract(norm, self.titles, scorer=fuzz.ratio, score_cutoff=TITLE_THRESHOLD * 100, limit=None)
            for _, score, index in hits:
                if (index not in found and self.titles[index] and not distinct_by_id(mine, self.items[index].keys)
                        and not distinct_by_title(norm, self.titles[index])
                        and not distinct_by_authors(names, self.items[index].names)):
                    found[index] = Match(self.items[index], similarity=score / 100)
        return [found[i] for i in sorted(found)]


def similar_title_pairs(items: list[Known]) -> list[tuple[Known, Known, float]]:
    """Every pair of papers whose normalized titles are at least :data:`TITLE_THRESHOLD`
    similar, as ``(earlier, later, similarity)`` in the order of ``items``.

    Exact: the length and bag-distance filters (see the module docstring) only skip
    pairs that cannot reach the threshold.
    """
    import numpy as np
    from rapidfuzz import fuzz

    titles = [k.norm for k in items]
    n = len(titles)
    if n < 2:
        return []
    lengths = np.array([len(t) for t in titles], dtype=np.int64)
    order = np.argsort(lengths, kind="stable")
    width = max(int(lengths.max()), 1)
    chars = np.zeros((n, width), dtype=np.uint8)
    for i, t in enumerate(titles):
        raw = t.encode("ascii", "replace")  # one byte per character: a letter of another script is "?" (the bag distance stays a lower bound)
        chars[i, : len(raw)] = np.frombuffer(raw, dtype=np.uint8)
    counts = np.zeros((n, 128), dtype=np.int16)
    np.add.at(counts, (np.repeat(np.arange(n), width), chars.ravel() & 127), 1)
    counts[:, 0] = 0  # padding
    counts = np.ascontiguousarray(counts[:, counts.any(axis=0)][order])
    sorted_len = lengths[order]
    t = TITLE_THRESHOLD
    # ratio = 2*LCS/(la+lb) >= t needs lb <= la * (2 - t) / t, and an Indel distance
    # (la + lb - 2*LCS) <= (1 - t) * (la + lb), which the bag distance may not exceed.
    upper = np.searchsorted(sorted_len, sorted_len * (2 - t) / t + 1e-9, side="right")
    pairs = []
    for a in range(n):
        if sorted_len[a] == 0:
            continue
        hi = int(upper[a])
        if hi <= a + 1:
            continue
        bag = np.abs(counts[a + 1: hi] - counts[a]).sum(axis=1)
        limit = (1 - t) * (sorted_len[a] + sorted_len[a + 1: hi]) + 1e-9
        for b in np.nonzero(bag <= limit)[0]:
            i, j = int(order[a]), int(order[a + 1 + b])
            score = fuzz.ratio(titles[i], titles[j], score_cutoff=t * 100)
            if score and not distinct_by_title(titles[i], titles[j]) and not distinct_by_authors(items[i].names,
                                                                                                   items[j].names):
                first, second = sorted((i, j))
                pairs.append((first, second, score / 100))
    return [(items[i], items[j], s) for i, j, s in sorted(pairs)]
