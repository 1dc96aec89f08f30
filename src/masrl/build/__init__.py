"""The build: a validated corpus -> every population analysed (:mod:`.pipeline`, giving
:class:`~masrl.build.pipeline.Build`; each table computed when asked for) -> every output
rendered (:mod:`.outputs`, the registry of text outputs, each keyed by what it reads,
:mod:`.keys`; :mod:`.figures`, figures reused or redrawn) -> ``{path: bytes}`` (:mod:`.generate`:
only the outputs whose key changed are computed; :mod:`.cache`, the build cache's digests;
:mod:`.manifest`, a release tree confirmed by its manifest) -> the one writer (:mod:`.write`:
atomic, deterministic, also ``--check``).

May import: :mod:`masrl.audits`, :mod:`masrl.trace`, :mod:`masrl.render`, :mod:`masrl.analyses`,
:mod:`masrl.corpus`, :mod:`masrl.bib`, :mod:`masrl.core`.
"""
