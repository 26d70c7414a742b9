"""The rules that recognise a secret given in prose: "my password is…", a PIN or door code,
"login: admin / …", "the API key is …", in English, French, Spanish, German, Portuguese and
Italian. A word after "password is" counts only if it looks like a value (digits, symbols,
quotes) or ends the clause, so a sentence *about* a password ("the password is stored in the
vault") passes. Used by `memstore.rules.secrets`; texts arrive normalised.
"""

import re
from collections.abc import Callable

Check = Callable[[re.Match[str]], bool] | None

# Words that follow "password is" in a sentence about a password rather than one giving it.
_NOT_A_VALUE_TEXT = """
a an the my our your his her their its this that in on at of for to from with by as not no
none null empty blank same different too very still also only just now never always stored
saved kept written hidden shared sent managed required needed missing wrong correct
incorrect invalid valid expired changed reset set updated rotated weak strong long short
secure safe unsafe encrypted hashed optional mandatory case-sensitive sensitive good bad
ok fine there here somewhere elsewhere inside fixed known unknown temporary protected
being going handled enforced listed printed visible masked redacted like what where how
which who whose whatever generated random complex simple easy hard tricky policy rules est
es ist é era war sind son são le la les un une el los las der die das ein eine o os um uma
dans en im no na ci nicht pas requis requise obligatoire erforderlich obligatorio
obligatoria obligatoire obrigatória obrigatório necesaria requerida nötig falsch errado
errada incorrecta see ask use check
"""
_NOT_A_VALUE = frozenset(_NOT_A_VALUE_TEXT.split())
_PASSWORD = (
    r"pass(?:word|wd|code|phrase)s?|pass[ -](?:word|code|phrase)|pwd|pw|mot de passe|mdp|"
    r"code secret|phrase (?:secr[eè]te|de passe)|contrase[nñ]a|clave|frase (?:secreta|de paso)|"
    r"passwort|kennwort|senha|palavra[ -]passe|frase[ -]senha|parola d'ordine|wi-?fi key"
)
_VERB = (
    r"(?:is|was|has been) (?:now|still|changed to|set to|reset to|updated to)|is|was|are|were|set to|"
    r"est|était|es|era|ist|lautet|war|é|são|è"  # longer phrases first: the first that fits wins
)
_QUALIFIER = r"(?:\s+(?:for|of|to|on|at|du|de|des|del|de la|für|zum|zur|vom|do|da|dos|para|per|di)\s+[^.,;:=\n]{1,40}?)?"
_CONNECT = rf"(?:\s*(?::=|[:=]|->|=>|→)\s*|\s+(?:{_VERB})\s*:?\s+)"
_VALUE = r"(?P<value>\"[^\"\n]{1,80}\"|'[^'\n]{1,80}'|“[^”\n]{1,80}”|«[^»\n]{1,80}»|\S{3,})"
_PASSWORD_RE = re.compile(
    rf"(?<!\w)(?:{_PASSWORD}){_QUALIFIER}(?P<connect>{_CONNECT}){_VALUE}", re.I
)
_PASSWORD_BARE_RE = re.compile(
    rf"(?<!\w)(?:{_PASSWORD})\s+(?P<value>(?=\S*[A-Za-z])(?=\S*[\d!@#$%^&*?_~+])\S{{6,}})", re.I
)
_SYMBOLIC = re.compile(r"[:=>→]")


def _password_ok(match: re.Match[str]) -> bool:
    value = match.group("value").strip()
    if value[0] in "\"'“«":
        return True
    value = value.rstrip(".,;!?)]")
    if len(value) < 3 or set(value) <= set("*•x…."):
        return False
    if value.lower() in _NOT_A_VALUE:
        return False
    if re.search(r"[^A-Za-zÀ-ÿ]", value) or re.search(r"[A-Z]", value[1:]):
        return True  # digits, symbols or inner capitals: hunter2, P@ss, swordFish
    # A plain word counts only if it ends the clause ("my password is swordfish.", "pwd:
    # swordfish"), not when a sentence goes on ("Password: see the vault").
    rest = match.string[match.end("value") :]
    return re.match(r"\s*(?:$|[.,;!?)]|and\b|but\b|et\b|y\b|und\b|e\b)", rest, re.I) is not None


def _login_ok(match: re.Match[str]) -> bool:
    # "login: admin / x" gives a password; "login page / dashboard" does not.
    value = match.group("value").rstrip(".,;!?)]")
    if _SYMBOLIC.search(match.group("connect") or match.group("connect2")):
        return value.lower() not in _NOT_A_VALUE
    return re.search(r"[^A-Za-zÀ-ÿ]", value) is not None


def _prose_rules() -> list[tuple[str, re.Pattern[str], Check]]:
    """(kind, pattern, check) for each prose rule, most common first."""
    text: list[tuple[str, str, Check, int]] = [
        (
            "a secret or token",
            r"(?<!\w)(?:api[_ -]?key|api[_ -]?secret|secret(?:[_ -]key)?|client[_ -]secret|(?:access|auth|refresh|session|bot)?[_ -]?token|access[_ -]?key|private[_ -]?key|clé (?:d')?api|clave (?:de )?api|chave (?:de )?api|api-schlüssel|jeton|signing key)"
            rf"{_QUALIFIER}(?:{_CONNECT}|\s+)[\"']?(?P<value>(?=[^\s\"']*\d)(?=[^\s\"']*[A-Za-z])[^\s\"']{{12,}})",
            None,
            re.I,
        ),
        (
            "a PIN or access code",
            r"(?<!\w)(?:PIN|(?i:pin[ -]?(?:code|number|nummer)|code pin|código pin|número pin|geheimzahl|code confidentiel|passcode|(?:door|alarm|gate|safe|lock|garage|entry|access|security|verification|backup|recovery|unlock|sim) codes?|código (?:de acesso|de acceso|secreto)|code d'accès|zugangscode|türcode))"
            r"(?i:\s*(?:[:=]|\s(?:is|was|est|es|ist|lautet|é|era)\b)?\s*)(?:\d[ -]?){3,11}\d(?!\d)",
            None,
            0,
        ),
        (
            "a wallet recovery phrase",
            r"(?<!\w)(?:seed|recovery|mnemonic|secret|backup)[ -](?:phrase|words)\b[^\n:=]{0,20}?(?:[:=]|\bis\b|\bare\b)\s*[\"']?(?:[a-zA-Z]+[\s,]+){11,}[a-zA-Z]+",
            None,
            re.I,
        ),
        (
            "login credentials",
            r"(?<!\w)(?:(?:login|log-in|sign-in|user(?:name)?|user id|identifiant|usuario|benutzer(?:name)?|utilizador|usuário|account)"
            r"(?P<connect>\s*[:=]\s*|\s+(?:(?:is|est|es|ist|é)\s*:?\s*)?)[^\s/|:]+\s*[/|]\s*"
            r"|(?:credentials?|creds|identifiants|credenciales|zugangsdaten|credenciais)"
            r"(?P<connect2>\s*[:=]\s*|\s+(?:(?:are|is|sont|son|sind|são)\s*:?\s*)?)[^\s/|:]+(?:\s*[/|]\s*|:))(?P<value>\S{3,})",
            _login_ok,
            re.I,
        ),
    ]
    return [
        ("a password", _PASSWORD_RE, _password_ok),
        ("a password", _PASSWORD_BARE_RE, None),
    ] + [(kind, re.compile(p, flags), check) for kind, p, check, flags in text]


PROSE_RULES = _prose_rules()
