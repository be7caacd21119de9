"""Tokens for scripts: obtain one with a username and password, rotate it, revoke it."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lineit_platform import throttles
from lineit_platform.accounts import token_for, token_revoke, token_rotate

from ..serializers import MeSerializer, TokenRequestSerializer, TokenSerializer
from ..throttling import TokenThrottle


class TokenView(APIView):
    """POST: your token (created on first use). DELETE: revoke it. Sign-in attempts and wrong
    passwords are counted per client address and per (account, address): the guesser is
    throttled, never the account (lineit_platform/throttles.py)."""

    permission_classes = [AllowAny]
    extra_error_codes = {"POST": ["429"]}

    def get_permissions(self) -> list[Any]:
        return [IsAuthenticated()] if self.request.method == "DELETE" else [AllowAny()]

    @extend_schema(request=TokenRequestSerializer, responses=TokenSerializer, auth=[], operation_id="token_obtain")
    def post(self, request: Request) -> Response:
        given = TokenRequestSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        user = throttles.authenticate(request, **given.validated_data)
        if user is None or not user.is_active:
            raise exceptions.AuthenticationFailed("Wrong username or password.")
        token = token_for(user=user)
        return Response({"token": token.key, "username": user.get_username()})

    @extend_schema(request=None, responses={204: None}, operation_id="token_revoke")
    def delete(self, request: Request) -> Response:
        token_revoke(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenRotateView(APIView):
    """A new token replaces the old one, which stops working at once."""

    permission_classes = [IsAuthenticated]
    throttle_classes = [TokenThrottle]

    @extend_schema(request=None, responses=TokenSerializer, operation_id="token_rotate")
    def post(self, request: Request) -> Response:
        signed_in_with = request.auth.key if isinstance(request.auth, Token) else None
        token = token_rotate(user=request.user, replacing=signed_in_with)
        if token is None:
            raise exceptions.AuthenticationFailed("This token was replaced in the meantime; sign in with the new one.")
        return Response({"token": token.key, "username": request.user.get_username()})


class MeView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=MeSerializer, operation_id="me")
    def get(self, request: Request) -> Response:
        return Response(MeSerializer(request.user).data)
