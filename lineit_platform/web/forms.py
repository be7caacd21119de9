"""Forms of the pages. They check input; the writes themselves go through the services."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm, UserCreationForm
from django.db.models import Q

from bots.models import BOT_NAME_PATTERN, NAME_LOOKS_LIKE, Bot, BotVersion
from lineit.engine import MAX_PLAYERS, RULESETS
from lineit_platform import throttles
from lineit_platform.accounts import username_check
from lineit_platform.confusables import name_key
from lineit_platform.errors import ApplicationError
from notifications.models import NotificationEvent
from notifications.services import email_check, webhook_url_check

from .selectors import playable_versions


class NoColonMixin:
    """Labels without Django's trailing colon."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


EMAIL_HELP = (
    "Optional. Used only to send you a link when you forget your password, and the notifications "
    "you choose (My notifications); never shown to anyone. Without it, a forgotten password cannot "
    "be reset."
)


class SignUpForm(NoColonMixin, UserCreationForm):
    """A name no other user's looks like, a password, and an optional address (for resets and
    the notifications the user chooses; saying so)."""

    email = forms.EmailField(label="Email address", required=False, max_length=254, help_text=EMAIL_HELP)

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")

    def clean_username(self) -> str:
        username: str | None = super().clean_username()  # None: refused already (another case)
        if username:
            username_check(username)
        return username or ""

    def clean_email(self) -> str:
        try:
            return email_check(self.cleaned_data.get("email") or "")
        except ApplicationError as error:
            raise forms.ValidationError(error.message) from None


class ResetForm(NoColonMixin, PasswordResetForm):
    """Django's reset form; each account it would mail is counted, and left out past its rate
    (throttles.reset_mail_allowed), silently: the page says the same for any address."""

    def get_users(self, email: str) -> Any:
        return (user for user in super().get_users(email) if throttles.reset_mail_allowed(user))


class LoginForm(NoColonMixin, AuthenticationForm):
    """Signs in through the throttle service, as the API's token view does: attempts and wrong
    passwords per client address and per (account, address), never a lock-out of the account.
    ``refusal`` is set when a limit refused the attempt."""

    refusal: throttles.RateLimited | None = None

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if username is not None and password:
            try:
                self.user_cache = throttles.authenticate(self.request, username=username, password=password)
            except throttles.RateLimited as refusal:
                self.refusal = refusal
                raise forms.ValidationError(refusal.message, code="throttled") from None
            if self.user_cache is None:
                raise self.get_invalid_login_error()
            self.confirm_login_allowed(self.user_cache)
        return self.cleaned_data


class BotCreateForm(NoColonMixin, forms.Form):
    name = forms.RegexField(
        regex=BOT_NAME_PATTERN,
        max_length=40,
        help_text="2-40 letters, digits, '.', '_' or '-'; unique on the site.",
        error_messages={"invalid": "Use 2-40 letters, digits, '.', '_' or '-', starting with a letter or digit."},
    )
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}), max_length=2000)

    def clean_name(self) -> str:
        name: str = self.cleaned_data["name"]
        # One read: a bot made meanwhile is seen once, as the same name or as a look-alike.
        taken = Bot.objects.filter(Q(name__iexact=name) | Q(name_key=name_key(name))).values_list("name", flat=True)
        found = taken.first()
        if found is not None and found.casefold() == name.casefold():
            raise forms.ValidationError("A bot with this name already exists.")
        if found is not None:
            raise forms.ValidationError(NAME_LOOKS_LIKE[0].upper() + NAME_LOOKS_LIKE[1:] + ".")
        return name


class UploadForm(NoColonMixin, forms.Form):
    code = forms.FileField(
        label="Bot file",
        help_text="A .py file, or a .zip package with bot.py at its root.",
        widget=forms.ClearableFileInput(attrs={"accept": ".py,.zip"}),
    )

    def clean_code(self) -> Any:
        upload = self.cleaned_data["code"]
        if upload.size > settings.BOT_UPLOAD_MAX_BYTES:
            raise forms.ValidationError(
                f"The file is {upload.size} bytes; the limit is {settings.BOT_UPLOAD_MAX_BYTES}."
            )
        return upload


class VersionChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: BotVersion) -> str:
        return f"{obj.label} ({obj.status})"


class VersionsChoiceField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj: BotVersion) -> str:
        return obj.label


class TestMatchForm(NoColonMixin, forms.Form):
    """An unranked match: one of your versions against up to four chosen opponents."""

    version = VersionChoiceField(queryset=BotVersion.objects.none(), label="Your version")
    opponents = VersionsChoiceField(
        queryset=BotVersion.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        help_text=f"Choose 1 to {MAX_PLAYERS - 1} opponents (a table of 2 to {MAX_PLAYERS}).",
    )
    games = forms.IntegerField(
        min_value=1,
        initial=4,
        help_text="With duplicate deals, each deck is played once per seat rotation.",
    )
    ruleset = forms.ChoiceField(choices=[(name, name) for name in RULESETS], initial=RULESETS[0])
    duplicate_deals = forms.BooleanField(required=False, initial=True, label="Duplicate deals")

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        mine = BotVersion.objects.filter(
            bot__owner=user, status__in=[BotVersion.Status.ACTIVE, BotVersion.Status.RETIRED]
        ).select_related("bot")
        self.fields["version"].queryset = mine.order_by("bot__name", "-number")
        self.fields["opponents"].queryset = playable_versions()
        self.fields["games"].widget.attrs["max"] = settings.API_MATCH_MAX_GAMES

    def clean_games(self) -> int:
        games: int = self.cleaned_data["games"]
        if games > settings.API_MATCH_MAX_GAMES:
            raise forms.ValidationError(f"At most {settings.API_MATCH_MAX_GAMES} games in a test match.")
        return games

    def clean_opponents(self) -> list[BotVersion]:
        opponents = list(self.cleaned_data["opponents"])
        if not 1 <= len(opponents) <= MAX_PLAYERS - 1:
            raise forms.ValidationError(f"Choose 1 to {MAX_PLAYERS - 1} opponents.")
        return opponents


class NotificationSettingsForm(NoColonMixin, forms.Form):
    """Your notification settings: the address mail goes to, the events told by mail and by
    webhook, the webhook's URL (notifications/webhooks.py: checked when saved and sent)."""

    email = forms.CharField(
        required=False,
        max_length=254,
        label="Email address",
        help_text="Your account's address, where mail goes; empty: no mail.",
        widget=forms.TextInput(attrs={"autocomplete": "email", "inputmode": "email"}),
    )
    email_events = forms.MultipleChoiceField(
        choices=NotificationEvent.choices, required=False, widget=forms.CheckboxSelectMultiple, label="By email"
    )
    webhook_events = forms.MultipleChoiceField(
        choices=NotificationEvent.choices, required=False, widget=forms.CheckboxSelectMultiple, label="By webhook"
    )
    webhook_url = forms.CharField(
        required=False,
        max_length=2000,
        label="Webhook URL",
        help_text="An https URL (a Slack or Discord incoming webhook, or your own) that receives a JSON POST "
        "per event; empty: no webhook. Public addresses only, port 443, no user name or password in it.",
        widget=forms.TextInput(attrs={"inputmode": "url", "placeholder": "https://hooks.slack.com/services/..."}),
    )

    def clean_email(self) -> str:
        try:
            return email_check(self.cleaned_data["email"])
        except ApplicationError as error:
            raise forms.ValidationError(error.message.removeprefix("email: ")) from None

    def clean_webhook_url(self) -> str:
        try:
            return webhook_url_check(self.cleaned_data["webhook_url"])
        except ApplicationError as error:
            raise forms.ValidationError(error.message.removeprefix("webhook_url: ")) from None
