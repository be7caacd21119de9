"""Every page of the Django admin answers 200 with data present: each registered model's list,
its add page (where adding is allowed) and the change page of one of its rows. A page that fails
to render (a link reversed with no id, a field that is gone) is a 500 for staff."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.urls import reverse
from django.utils import timezone

from tournaments.services.matches.states import match_schedule
from tournaments.services.ratings_fit import ratings_fit
from tournaments.services.tournaments.creation import tournament_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def everything(played: dict[str, Any], version_factory: Any) -> None:
    """Rows of every kind: matches played (games, failures, ratings, events: the played fixture),
    a queued one, a tournament, a recurring one, a whole-history fit."""
    match_schedule(versions=[played["good"], played["other"]], games=2)
    tournament_create(
        name="Admin cup",
        format="single",
        starts_at=timezone.now(),
        versions=[played["good"], played["other"], version_factory(), version_factory()],
        games_per_pairing=2,
    )
    ratings_fit(ruleset="standard")


def admin_pages() -> list[tuple[str, str]]:
    pages = []
    for model in admin.site._registry:
        label = f"{model._meta.app_label}_{model._meta.model_name}"
        pages.append((label, "changelist"))
        pages.append((label, "add"))
    return sorted(pages)


def test_every_model_of_the_apps_is_in_the_admin() -> None:
    registered = {model._meta.label for model in admin.site._registry}
    assert {"tournaments.Match", "tournaments.Game", "bots.Bot", "bots.BotVersion"} <= registered


@pytest.mark.parametrize("label, page", admin_pages())
def test_each_admin_list_and_add_page_answers(client, staff, everything, label: str, page: str) -> None:  # type: ignore[no-untyped-def]
    client.force_login(staff)
    model = next(m for m in admin.site._registry if f"{m._meta.app_label}_{m._meta.model_name}" == label)
    model_admin = admin.site._registry[model]
    if page == "add" and not model_admin.has_add_permission(_request(staff)):
        assert client.get(reverse(f"admin:{label}_add")).status_code == 403
        return
    response = client.get(reverse(f"admin:{label}_{page}"))
    assert response.status_code == 200, f"{label} {page}: {response.status_code}"


def test_each_admin_change_page_answers_for_a_row(client, staff, everything) -> None:  # type: ignore[no-untyped-def]
    client.force_login(staff)
    failing = []
    for model in admin.site._registry:
        label = f"{model._meta.app_label}_{model._meta.model_name}"
        row = model._default_manager.order_by("pk").first()
        if row is None:
            continue
        response = client.get(reverse(f"admin:{label}_change", args=[row.pk]))
        if response.status_code != 200:
            failing.append((label, response.status_code))
    assert failing == []
    # every model of the platform's own apps had a row to show
    shown = {m._meta.label for m in admin.site._registry if m._default_manager.exists()}
    assert {"tournaments.Match", "tournaments.Game", "tournaments.GameFailure", "tournaments.Tournament"} <= shown


def _request(user: Any) -> Any:
    from django.test import RequestFactory

    request = RequestFactory().get("/admin/")
    request.user = user
    return request
