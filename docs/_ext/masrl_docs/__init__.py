"""Sphinx extension of masrl's manual: the directives that write the reference pages from
masrl's code (:mod:`.pages`, :mod:`.schemas`) and the CLI reference's parser (:mod:`.cli`).

Directives (in a MyST page, ```` ```{masrl-format} taxonomy ```` ... ):

``masrl-format NAME``      every key of a file format (``pages.FORMATS``)
``masrl-kinds GROUP``      the kinds of ``table``, ``column`` or ``figure``
``masrl-columns NAME``     the columns of an update round's ``queue`` or ``duplicates`` sheet
``masrl-exit-codes``       the exit codes (``masrl.cli.EXIT_CODES``)
``masrl-environment``      the environment variables masrl's code reads
``masrl-figure-gallery``   each figure kind as the bundled survey draws it

A key, kind, column or variable of the code without a description, or a description of
something the code does not have, is a warning: ``sphinx-build -W`` fails on it.
"""

from __future__ import annotations

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

from . import cli, gallery, pages

LOGGER = logging.getLogger(__name__)


class _Generated(SphinxDirective):
    """A directive whose content is Markdown made by a function of :mod:`.pages`."""

    optional_arguments = 1
    option_spec = {"level": int}

    def markdown(self) -> str:  # pragma: no cover - each directive defines it
        raise NotImplementedError

    def problems(self) -> list[str]:
        return []

    def run(self):
        for problem in self.problems():
            LOGGER.warning(problem, location=(self.env.docname, self.lineno))
        node = nodes.section()
        node.document = self.state.document
        text = self.markdown()
        nested_parse_with_titles(self.state, StringList(text.splitlines(), source=f"<{self.name}>"), node)
        return node.children


class Format(_Generated):
    required_arguments = 1
    optional_arguments = 0

    def markdown(self) -> str:
        return pages.format_markdown(self.arguments[0], level=self.options.get("level", 3))

    def problems(self) -> list[str]:
        return pages.problems_format(self.arguments[0])


class Kinds(_Generated):
    required_arguments = 1
    optional_arguments = 0

    def markdown(self) -> str:
        return pages.kinds_markdown(self.arguments[0])

    def problems(self) -> list[str]:
        return pages.problems_kinds() if self.arguments[0] == "figure" else []


class Columns(_Generated):
    required_arguments = 1
    optional_arguments = 0

    def markdown(self) -> str:
        return pages.columns_markdown(self.arguments[0])

    def problems(self) -> list[str]:
        return pages.problems_columns(self.arguments[0])


class ExitCodes(_Generated):
    def markdown(self) -> str:
        return pages.exit_codes_markdown()


class Environment(_Generated):
    def markdown(self) -> str:
        return pages.environment_markdown()

    def problems(self) -> list[str]:
        return pages.problems_environment()


class FigureGallery(_Generated):
    def markdown(self) -> str:
        return gallery.markdown(self.env.srcdir, self.env.docname)

    def problems(self) -> list[str]:
        return gallery.problems()


def _survey(app, config) -> None:
    if config.masrl_survey:
        cli.SURVEY = gallery.SURVEY = __import__("pathlib").Path(config.masrl_survey).resolve()


def setup(app):
    app.add_config_value("masrl_survey", "", "env")
    app.connect("config-inited", _survey)
    for name, directive in (("masrl-format", Format), ("masrl-kinds", Kinds), ("masrl-columns", Columns),
                            ("masrl-exit-codes", ExitCodes), ("masrl-environment", Environment),
                            ("masrl-figure-gallery", FigureGallery)):
        app.add_directive(name, directive)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
