"""Shared by every stage: problems and user errors, console output, the text policy for
placeholders, the "did you mean" hint.

Owns: :class:`~masrl.core.errors.Problem` (file, line, field, message) and how a run's
problems are sorted and summarised. May import: nothing of masrl.
"""
