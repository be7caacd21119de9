"""What the serializers share: who is viewing, absolute links, and writing rows that a selector
built (the shared readers of tournaments/selectors/, which the pages show too)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.urls import reverse
from rest_framework import serializers


def viewer(serializer: serializers.Field) -> Any:
    request = serializer.context.get("request")
    return getattr(request, "user", None)


_PLACEHOLDER = 987654321987654321


def absolute(serializer: serializers.Field, name: str, pk: int) -> str:
    """The absolute URL of ``name`` for ``pk``; reversed once per serializer (lists make many)."""
    templates = serializer.context.setdefault("url_templates", {})
    template = templates.get(name)
    if template is None:
        path = reverse(name, args=[_PLACEHOLDER])
        request = serializer.context.get("request")
        template = (request.build_absolute_uri(path) if request is not None else path).replace(str(_PLACEHOLDER), "{}")
        templates[name] = template
    return str(template).format(pk)


def picked(row: Mapping[str, Any], fields: Sequence[str], **computed: Any) -> dict[str, Any]:
    """The declared ``fields`` of a selector's row, in their order; those given in ``computed``
    (links, nested rows) from there. A row may hold more than the API shows (what the pages use)."""
    return {name: computed[name] if name in computed else row[name] for name in fields}


class RowListSerializer(serializers.ListSerializer):
    """A page of rows: built at once by the child's ``build`` (a query for the page, never one per
    row), then each written by the child's ``write``."""

    def to_representation(self, data: Any) -> list[dict[str, Any]]:
        child: Any = self.child
        return [child.write(row) for row in child.build(list(data))]


# For a read-only serializer whose declared fields are the schema of rows that a selector builds:
# ``build`` turns a page of what the view's queryset gives into the selector's rows (as they are,
# unless overridden), ``write`` picks the declared fields from one. Its Meta names
# RowListSerializer, so a page is built at once. (No docstring: a serializer's docstring, which
# this would be, is the schema's description of its component.)
class RowWriter:
    def build(self, rows: list[Any]) -> list[Any]:
        return rows

    def write(self, row: Any) -> dict[str, Any]:
        raise NotImplementedError

    def to_representation(self, instance: Any) -> dict[str, Any]:
        return self.write(self.build([instance])[0])
