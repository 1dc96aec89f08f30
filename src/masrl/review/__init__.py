"""Operations of the living review that change the corpus: intake of new papers
(:mod:`.intake`, under ``masrl add`` and ``masrl exclude``), the audit steps
(:mod:`.auditing`) and the update rounds (:mod:`.update`: search, deduplicate, apply). Each step takes a corpus and returns the files to write, checked by
:mod:`masrl.checks`; the command writes them through :mod:`masrl.build.write`.

May import: every stage below it (:mod:`masrl.build`, :mod:`masrl.checks` and down).
"""
