"""The platform's SMTP backend: Django's, with one total deadline for all it does.

Django's backend gives EMAIL_TIMEOUT to each socket operation, so a relay that answers slowly, a
line at a time, could hold the process for as long as it likes. Here the whole of a send_messages
call (lookup, connect, TLS or STARTTLS, login, every command and reply) ends within EMAIL_TIMEOUT
(notifications/deadline.py): a notification's delivery and a password reset's mail alike.
settings.EMAIL_BACKEND names it whenever mail goes over SMTP.
"""

from __future__ import annotations

import contextlib
import smtplib
import socket
import ssl
from collections.abc import Sequence
from typing import Any

from django.core.mail.backends.smtp import EmailBackend
from django.core.mail.message import EmailMessage
from django.utils.functional import cached_property

from .deadline import connect, deadline_tls, resolve, total_deadline


def _deadline_socket(host: str, port: int, timeout: float, source_address: Any) -> socket.socket:
    """socket.create_connection's loop over the host's addresses, each socket obeying the deadline."""
    last: OSError | None = None
    for family, _, _, _, address in resolve(host, port):
        try:
            sock = connect(address, family, timeout)
        except OSError as error:
            last = error
            continue
        return sock
    raise last or OSError(f"no address for {host}")


class _SMTP(smtplib.SMTP):
    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        return _deadline_socket(host, port, timeout, self.source_address)


class _SMTP_SSL(smtplib.SMTP_SSL):
    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        sock = _deadline_socket(host, port, timeout, self.source_address)
        return self.context.wrap_socket(sock, server_hostname=self._host)  # type: ignore[attr-defined]


class DeadlineEmailBackend(EmailBackend):
    """Django's SMTP backend; each send_messages call ends within the backend's timeout
    (EMAIL_TIMEOUT), or within an enclosing deadline when that is sooner."""

    @property
    def connection_class(self) -> type[smtplib.SMTP]:
        return _SMTP_SSL if self.use_ssl else _SMTP

    @cached_property
    def ssl_context(self) -> ssl.SSLContext:
        return deadline_tls(super().ssl_context)

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        with total_deadline(float(self.timeout or 10)):
            try:
                return super().send_messages(email_messages)
            finally:
                if getattr(self, "connection", None) is not None:  # one opened within this deadline ends with it
                    with contextlib.suppress(OSError, smtplib.SMTPException):
                        self.close()
                    self.connection = None
