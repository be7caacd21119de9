"""Your notification settings: read them, change them (only your own: there is no id to name
someone else's)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from notifications.models import Notification
from notifications.services import notification_settings_of, notification_settings_update

from ..serializers.notifications import NotificationSettingsSerializer


def settings_data(user: Any) -> dict[str, Any]:
    chosen = notification_settings_of(user)
    recent = list(Notification.objects.filter(user_id=user.pk).order_by("-created_at", "-id")[:20])
    return {
        "email": user.email,
        "email_events": chosen.email_events,
        "webhook_events": chosen.webhook_events,
        "webhook_url": chosen.webhook_url,
        "recent": recent,
    }


class MyNotificationsView(APIView):
    """GET: your notification settings and your last 20 notifications (how their delivery went).
    PUT: replace the settings (``email`` optional); PATCH: change some of them. Bad input is a 400
    naming the field, and changes nothing."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=NotificationSettingsSerializer, operation_id="me_notifications")
    def get(self, request: Request) -> Response:
        return Response(NotificationSettingsSerializer(settings_data(request.user)).data)

    @extend_schema(
        request=NotificationSettingsSerializer,
        responses=NotificationSettingsSerializer,
        operation_id="me_notifications_update",
    )
    def put(self, request: Request) -> Response:
        return self._update(request, partial=False)

    @extend_schema(
        request=NotificationSettingsSerializer,
        responses=NotificationSettingsSerializer,
        operation_id="me_notifications_partial_update",
    )
    def patch(self, request: Request) -> Response:
        return self._update(request, partial=True)

    def _update(self, request: Request, *, partial: bool) -> Response:
        given = NotificationSettingsSerializer(data=request.data, partial=partial)
        given.is_valid(raise_exception=True)
        notification_settings_update(user=request.user, **given.validated_data)
        return Response(NotificationSettingsSerializer(settings_data(request.user)).data)
