"""The routes of the web pages, with a path convertor that only matches known publishers."""

from __future__ import annotations

from pathlib import Path

from starlette.convertors import CONVERTOR_TYPES, Convertor, register_url_convertor
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from serve.web import views
from serve.web.kept import kept_page
from serve.web.shape import PUBLISHERS

STATIC_DIR = Path(__file__).resolve().parent / "static"


class PublisherConvertor(Convertor[str]):
    """Matches ``lu-legilux`` or ``eu-eurlex`` only, so other paths fall through to 404."""

    regex = "|".join(PUBLISHERS)

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


def _register() -> None:
    if "publisher" not in CONVERTOR_TYPES:
        register_url_convertor("publisher", PublisherConvertor())


def routes() -> list[BaseRoute]:
    """Every web page route (registered after the API, MCP and health routes). The pages that are
    a function of the mounted set, their path and their query alone are kept once rendered
    (:func:`serve.web.kept.kept_page`)."""
    _register()
    work = "/{publisher:publisher}/{work}"
    return [
        Route("/", views.home, methods=["GET"], name="home"),
        Route("/search", kept_page(views.search), methods=["GET"], name="search"),
        Route("/verify", views.verify, methods=["GET"], name="verify"),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        Route(work, kept_page(views.work), methods=["GET"], name="work"),
        Route(f"{work}/at", views.go_to_date, methods=["GET"], name="work_at"),
        Route(f"{work}/compare", views.go_to_diff, methods=["GET"], name="work_compare"),
        Route(f"{work}/diff/{{a}}/{{b}}", kept_page(views.diff), methods=["GET"], name="diff"),
        Route(f"{work}/{{point}}/provenance", kept_page(views.provenance), methods=["GET"], name="provenance"),
        Route(f"{work}/{{point}}", kept_page(views.version), methods=["GET"], name="version"),
    ]
