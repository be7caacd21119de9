"""What the serializers share: who is viewing, absolute links."""

from __future__ import annotations

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
