"""The rules that recognise a secret in a short text, in the order they are tried: the prose
rules (`memstore.rules.secret_prose`: "my password is…", PINs and codes, passphrases, seed
phrases, user / password pairs, in six languages), our own key shapes
(`memstore.rules.secret_keys`: the shapes detect-secrets lacks, environment lines, JWTs, key
bodies without PEM lines, card numbers) and detect-secrets' plugins (their own regexes, used
directly: its scanning machinery costs milliseconds per call and we run on every write).
`memstore.rules.policy` runs them; nothing else should.

Texts reach these rules already folded (`memstore.rules.normalise`). This module does not
decide where the rules apply, and it never returns the secret it found.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

from detect_secrets.plugins.artifactory import ArtifactoryDetector
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.cloudant import CloudantDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.ibm_cloud_iam import IbmCloudIamDetector
from detect_secrets.plugins.ibm_cos_hmac import IbmCosHmacDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.private_key import PrivateKeyDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.softlayer import SoftlayerDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector

from memstore.rules.secret_keys import KEY_SHAPES, LONG_RUN, PEM, URL
from memstore.rules.secret_prose import PROSE_RULES


@dataclass(frozen=True, slots=True)
class Rule:
    """One way a secret shows: `check` (if any) confirms a match the pattern alone can't;
    `gate` (if any) is a cheap pattern the lower-cased text must contain for the rule to be
    tried at all (most texts hold no long token, so most key rules are skipped); `key`: a key shape, also
    looked for in a text's decoded and re-joined forms (`memstore.rules.normalise`)."""

    kind: str
    pattern: re.Pattern[str]
    check: Callable[[re.Match[str]], bool] | None = None
    gate: re.Pattern[str] | None = None
    key: bool = True


# Not used: IPPublicDetector (an address is not a secret), the keyword and high-entropy
# detectors (made for source code; our prose rules below replace them).
_PLUGINS = (
    ArtifactoryDetector,
    AWSKeyDetector,
    AzureStorageKeyDetector,
    BasicAuthDetector,
    CloudantDetector,
    DiscordBotTokenDetector,
    GitHubTokenDetector,
    GitLabTokenDetector,
    IbmCloudIamDetector,
    IbmCosHmacDetector,
    JwtTokenDetector,
    MailchimpDetector,
    NpmDetector,
    OpenAIDetector,
    PrivateKeyDetector,
    PypiTokenDetector,
    SendGridDetector,
    SlackDetector,
    SoftlayerDetector,
    SquareOAuthDetector,
    StripeDetector,
    TelegramBotTokenDetector,
    TwilioKeyDetector,
)


def _kind(name: str) -> str:
    return f"{'an' if name[0] in 'AEIOU' else 'a'} {name}"


def _jwt_ok(match: re.Match[str]) -> bool:
    return JwtTokenDetector.is_formally_valid(match.group())


_ARTIFACTORY = re.compile(r"(?:akc|ap[\da-f])[a-z0-9]{8}")
_PLUGIN_GATES = {
    PrivateKeyDetector: PEM,
    BasicAuthDetector: URL,
    ArtifactoryDetector: _ARTIFACTORY,
}


def _plugin_rules() -> list[Rule]:
    rules = []
    for plugin in _PLUGINS:
        check = _jwt_ok if plugin is JwtTokenDetector else None
        gate = _PLUGIN_GATES.get(plugin, LONG_RUN)
        rules += [Rule(_kind(plugin.secret_type), p, check, gate) for p in plugin().denylist]
    return rules


RULES: tuple[Rule, ...] = tuple(
    [Rule(kind, p, check, gate, key=False) for kind, p, check, gate in PROSE_RULES]
    + [Rule(kind, pattern, check, gate) for kind, pattern, check, gate in KEY_SHAPES]
    + _plugin_rules()
)
"""Every rule, prose first (the commonest), then our key shapes, then detect-secrets'."""

KEY_RULES: tuple[Rule, ...] = tuple(
    rule for rule in RULES if rule.key and rule.kind != "a payment card number"
)
"""The rules tried on a text's hidden forms (a card number already allows its separators)."""
