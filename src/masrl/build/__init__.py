"""The build: a validated corpus -> every population analysed (:mod:`.pipeline`, giving
:class:`~masrl.build.pipeline.Build`) -> every output rendered (:mod:`.outputs`, the registry
of text outputs; :mod:`.figures`, figures reused or redrawn) -> ``{path: bytes}``
(:mod:`.generate`) -> the one writer (:mod:`.write`: atomic, deterministic, also ``--check``).

May import: :mod:`masrl.audits`, :mod:`masrl.trace`, :mod:`masrl.render`, :mod:`masrl.analyses`,
:mod:`masrl.corpus`, :mod:`masrl.bib`, :mod:`masrl.core`.
"""
