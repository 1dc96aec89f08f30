"""One module per ``masrl`` command: argument handling, a call into the stages, the
exit code. Imported only by :mod:`masrl.cli`; a command imports no other command.

May import: every stage.
"""
