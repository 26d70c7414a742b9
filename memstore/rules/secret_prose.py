"""The rules that recognise a secret given in prose: "my password is…", "the wifi pass is …",
a PIN, door or access code, a safe's combination, a passphrase or wallet recovery phrase,
"login: admin / …", "credentials for X are …", "SSH in with root / …", "the API key is …", in
English, French, Spanish, German, Portuguese and Italian. A word after "password is" counts
only if it looks like a value (digits, symbols, quotes) or ends the clause, so a sentence
*about* a password ("the password is stored in the vault") passes; a passphrase is words with
none of the small words prose is made of. Used by `memstore.rules.secrets`; texts arrive
folded (`memstore.rules.normalise`). `PROSE_GATE` is the cheap test that lets most texts skip
these rules.
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
NOT_A_VALUE = frozenset(_NOT_A_VALUE_TEXT.split())
_PASSWORD = (
    r"(?:wi-?fi|wlan|router|network|vpn|admin|root|guest|e-?mail|account|server|db|database|"
    r"laptop|computer|phone) pass\b|cl[ée] (?:du )?wi-?fi|clave (?:del )?wi-?fi|wlan-schl[üu]ssel|"
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
    if value.lower() in NOT_A_VALUE:
        return False
    if re.search(r"[^A-Za-zÀ-ÿ]", value) or re.search(r"[A-Z]", value[1:]):
        return True  # digits, symbols or inner capitals: hunter2, P@ss, swordFish
    # A plain word counts only if it ends the clause ("my password is swordfish.", "pwd:
    # swordfish"), not when a sentence goes on ("Password: see the vault").
    rest = match.string[match.end("value") :]
    return re.match(r"\s*(?:$|[.,;!?)]|and\b|but\b|et\b|y\b|und\b|e\b)", rest, re.I) is not None


def _ends_clause(match: re.Match[str], group: str = "value") -> bool:
    rest = match.string[match.end(group) :]
    return re.match(r"\s*(?:$|[.,;!?)]|and\b|but\b|et\b|y\b|und\b|e\b)", rest, re.I) is not None


def _plain(value: str) -> bool:
    return re.search(r"[^A-Za-zÀ-ÿ]", value) is None


def _login_ok(match: re.Match[str]) -> bool:
    # "login: admin / x" gives a password; "login page / dashboard redesign" does not.
    value = match.group("value").rstrip(".,;!?)]")
    if value.lower() in NOT_A_VALUE:
        return False
    if _SYMBOLIC.search(match.group("connect") or match.group("connect2") or ""):
        return True
    return not _plain(value) or _ends_clause(match)


def _pair_ok(match: re.Match[str]) -> bool:
    # "credentials for the NAS are admin / hunter2", "SSH in with root / toor": a user and a
    # secret, not "credentials are handled by SSO" or "ssh in with your key".
    user, value = match.group("user").lower(), match.group("value").rstrip(".,;!?)]")
    if user in NOT_A_VALUE or user in _STOP or value.lower() in NOT_A_VALUE or len(value) < 3:
        return False
    if _SYMBOLIC.search(match.group("sep")) or "/" in match.group("sep"):
        return True
    return not _plain(value) or _ends_clause(match)


# Small words no passphrase or seed phrase is made of.
_STOP_TEXT = """the a an and or of to in on at for with by from is are was be it its this that my your
    his her our their i we you he she they me us them not no but so as if then than when
    where which who what how do does did has have had will would can could should"""
_STOP = frozenset(_STOP_TEXT.split())


def _words_ok(match: re.Match[str]) -> bool:
    # "the passphrase is correct horse battery staple", not "… is written on paper in the safe".
    # A first word like "correct" is a value only in a run of four or more with no small words.
    words = re.findall(r"[^\W\d_]+", match.group("value").lower())
    stops = sum(word in _STOP for word in words)
    if not words or (words[0] in NOT_A_VALUE and (stops or len(words) < 4)):
        return False
    return stops <= len(words) // 6


_QUAL = r"(?:\s+(?:for|of|to|on|at|du|de|des|del|de la|für|zum|zur|vom|von|der|do|da|dos|para|per|di)\s+[^.,;:=\n\d]{1,40}?)?"
_IS = r"(?:\s*(?::=|[:=]|->|=>|→)\s*|\s+(?:is|are|was|were|est|c'est|sont|es|son|era|ist|sind|lautet|lauten|war|é|são|è)\s*:?\s*)"
_PIN_WORDS = (
    r"PIN|(?i:pin[ -]?(?:code|number|nummer|nr)|codes? pin|c[oó]digo pin|n[uú]mero pin|num[ée]ro pin|"
    r"n[uú]mero secreto|num[ée]ro secret|geheimzahl|geheimnummer|code confidentiel|passcode|digicode|"
    r"(?:door|alarm|gate|safe|lock|garage|entry|access|security|verification|backup|recovery|"
    r"unlock|sim|building|keypad|locker) codes?|codes? (?:d'acc[eè]s|d'entr[ée]e|de (?:la )?porte|"
    r"de l'alarme|du portail|de l'immeuble|du coffre|du garage|secret)|c[oó]digos? (?:de acesso|"
    r"de acceso|secreto|da porta|de la puerta|do port[aã]o|del portal|de la alarma|do alarme|"
    r"de entrada|do cofre|de la caja fuerte|do pr[ée]dio|del edificio|de seguran[cç]a)|"
    r"clave (?:del portal|de la puerta|de acceso|de la alarma)|zugangscode|t[üu]r-?code|torcode|"
    r"alarmcode|tresorcode|haust[üu]rcode|zahlencode|sicherheitscode|senha do cart[aã]o)"
)
_ARTICLE = r"(?i:(?:le|la|el|o|a|die|der|das|the)\s+)?"
_LOCK = r"(?:safe|lock|locker|padlock|vault|bike lock|gun safe|coffre|cadenas|caja fuerte|candado|tresor|cofre|cadeado)"
_COMBO_WORD = (
    r"(?:combination|combo)(?:\s+(?:code|number))?|combinaison|combinaci[oó]n|combina[cç][aã]o|"
    r"zahlenkombination|kombination|zahlenschloss-?code"
)
_SEED = (
    r"(?:seed|recovery|mnemonic|secret|backup|wallet|restore)[ -](?:phrase|words)|mnemonic|seed|"
    r"phrase de r[ée]cup[ée]ration|frase (?:de recuperaci[oó]n|semilla|de recupera[cç][aã]o)|"
    r"wiederherstellungsphrase|palavras de recupera[cç][aã]o"
)


# (kind, pattern, check, flags) of each prose rule after the two password rules.
_TEXT_RULES: list[tuple[str, str, Check, int]] = [
    (
        "a secret or token",
        r"(?<!\w)(?:api[_ -]?key|api[_ -]?secret|secret(?:[_ -]key)?|client[_ -]secret|(?:access|auth|refresh|session|bot)?[_ -]?token|access[_ -]?key|private[_ -]?key|clé (?:d')?api|clave (?:de )?api|chave (?:de )?api|api-schlüssel|jeton|signing key)"
        rf"{_QUALIFIER}(?:{_CONNECT}|\s+)[\"']?(?P<value>(?=[^\s\"']*\d)(?=[^\s\"']*[A-Za-z])[^\s\"']{{12,}})",
        None,
        re.I,
    ),
    (
        "a PIN or access code",
        rf"(?<!\w)(?:{_PIN_WORDS}){_QUAL}(?i:{_IS}|\s+)?{_ARTICLE}(?:\d[ -]?){{3,11}}\d(?!\d)",
        None,
        0,
    ),
    (
        "a lock combination",
        # "safe combination 12-34-56", "the combination is 12-34-56"; not "combination 3, 5, 7
        # worked best" (no lock named, nothing says this is its value).
        rf"(?<!\w)(?:{_LOCK}\s+(?:{_COMBO_WORD}){_QUAL}(?:{_IS}|\s+)|(?:{_COMBO_WORD}){_QUAL}\s+(?:(?:de|del|do|da|du|des|der|of the)\s+)?{_LOCK}?{_IS}|(?:{_COMBO_WORD}){_QUAL}{_IS})"
        rf"{_ARTICLE}(?:\d{{1,3}}[ ,./–-]+){{2,5}}\d{{1,3}}(?![\d])",
        None,
        re.I,
    ),
    (
        "a wallet recovery phrase",
        rf"(?<!\w)(?:{_SEED})\b[^\n:=]{{0,30}}?(?:[:=]|\bis\b|\bare\b|\best\b|\bes\b|\bist\b|\bé\b)\s*[\"']?(?P<value>(?:(?:\d{{1,2}}[.)]\s*)?[a-zA-Z]{{3,8}}[\s,;-]+){{11,}}(?:\d{{1,2}}[.)]\s*)?[a-zA-Z]{{3,8}})",
        _words_ok,
        re.I,
    ),
    (
        "a passphrase",
        rf"(?<!\w)(?:pass ?phrase|secret phrase|phrase secr[eè]te|frase (?:secreta|de paso|de contrase[nñ]a)|passsatz|frase[ -]senha){_QUALIFIER}{_IS}[\"']?(?P<value>[A-Za-zÀ-ÿ][\w'’-]*(?:[ ,.-]+[A-Za-zÀ-ÿ][\w'’-]*){{2,9}})",
        _words_ok,
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
    (
        "login credentials",
        r"(?<!\w)(?:user(?:name)?|login|benutzer(?:name)?|usuario|utilisateur|identifiant|utilizador|usuário|account)\s*[:=]?\s*(?P<user>[^\s,;/|]+)(?P<sep>[\s,;]+(?:and\s+|et\s+|y\s+|und\s+|e\s+)?)"
        r"(?:pass(?:word)?|pw|pwd|mot de passe|mdp|contrase[nñ]a|clave|passwort|kennwort|senha)\b\s*(?:[:=]|\bis\b|\best\b|\bes\b|\bist\b|\bé\b)?\s*(?P<value>[^\s,;]{3,})",
        _pair_ok,
        re.I,
    ),
    (
        "login credentials",
        rf"(?<!\w)(?:credentials?|creds|login details|login info|identifiants|credenciales|zugangsdaten|anmeldedaten|credenciais|dados de acesso|datos de acceso){_QUAL}{_IS}"
        r"(?P<user>[^\s/|:,]+)(?P<sep>\s*[/|:,]\s*|\s+(?:and|y|et|und|e)\s+|\s+)(?P<value>[^\s,;]{3,})",
        _pair_ok,
        re.I,
    ),
    (
        "SSH credentials",
        r"(?<!\w)ssh\b[^\n.;]{0,40}?\b(?:with|as|using|user|login|via)\s+(?P<user>[\w.@-]+)"
        r"(?P<sep>\s*[/|:]\s*|,?\s+(?:password|pass|pw|pwd)\b\s*[:=]?\s*|\s+and\s+(?:password\s+)?)(?P<value>\S{3,})"
        r"|(?<!\w)ssh\s+(?:-\S+\s+)*[\w.-]+:(?P<inline>[^\s@]{3,})@[\w.-]+",
        lambda m: m.group("inline") is not None or _pair_ok(m),
        re.I,
    ),
]


# A user name and a password side by side, "admin / Voyage439%ust", "root/Tr0ub4dor&3": a pair
# when the user is one an account is commonly called (or an e-mail address), or the text speaks
# of logging in; the password has a letter and a digit or symbol, and is not a file name.
_ACCOUNTS_TEXT = """admin administrator root user guest pi ubuntu debian centos sa postgres mysql
    oracle operator support test demo ec2-user ftp git deploy service backup nas router
    superuser sysadmin webmaster owner manager staff"""
_ACCOUNTS = frozenset(_ACCOUNTS_TEXT.split())
_LOGIN_CONTEXT = re.compile(
    r"log[ -]?in|sign[ -]?in|credential|creds|account|password|passwd|username|ssh|\bnas\b|"
    r"router|wi-?fi",
    re.I,
)
_PAIR_RE = re.compile(
    r"(?<![\w.@+=:/-])(?P<user>[\w.@+-]{2,64})\s*/\s*(?P<value>[^\s/|]{6,64})(?![^\s.,;!?)])"
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
_FILE_NAME = re.compile(r"\.[A-Za-z]{1,5}$")


def _bare_pair_ok(match: re.Match[str]) -> bool:
    value = match.group("value").rstrip(".,;)")  # "!" and "?" end many passwords
    user = match.group("user").lower()
    if len(value) < 6 or value.lower() in NOT_A_VALUE or _FILE_NAME.search(value):
        return False
    if not re.search(r"[A-Za-z]", value) or not re.search(r"[\d!@#$%^&*?~+=]", value):
        return False
    if re.fullmatch(r"[\d.:-]+", user) or user in NOT_A_VALUE or user in _STOP:
        return False
    return (
        user in _ACCOUNTS
        or _EMAIL.fullmatch(user) is not None
        or _LOGIN_CONTEXT.search(match.string) is not None
    )


PAIR_GATE = re.compile(r"/")


def _prose_rules() -> list[tuple[str, re.Pattern[str], Check]]:
    """(kind, pattern, check) for each prose rule, most common first."""
    return [
        ("a password", _PASSWORD_RE, _password_ok),
        ("a password", _PASSWORD_BARE_RE, None),
    ] + [(kind, re.compile(p, flags), check) for kind, p, check, flags in _TEXT_RULES]


# Every prose rule starts with one of these words (in the lower-cased text): a text with none
# of them (most texts) skips the prose rules. A plain search of the lower-cased text is ten
# times cheaper than one case-insensitive pattern of the same words.
PROSE_GATE = re.compile(
    r"pass(?![a-bd-oq-vx-z])|mot de passe|passsatz|pw|mdp|contrase|clave|kennwort|senha|palavra|"
    r"parola|pin|code|c[oó]dig|geheim|zahl|secret|secr[eè]t|token|key|clé|chave|schl[üu]ssel|"
    r"jeton|login|log-in|sign-in|user|usuario|usu[aá]rio|benutzer|identifiant|utilisateur|"
    r"utilizador|account|credential|creds|credencia|zugangs|anmelde|acces|seed|recovery|mnemonic|"
    r"backup|wallet|restore|phrase|frase|wiederherstellung|palavras|combin|combo|kombination|ssh|"
    r"wi-?fi|wlan"
)  # no \b or look-behind first: either would cost the pattern its fast first-letter scan
PROSE_RULES = [(kind, pattern, check, PROSE_GATE) for kind, pattern, check in _prose_rules()] + [
    ("login credentials", _PAIR_RE, _bare_pair_ok, PAIR_GATE)
]
"""(kind, pattern, check, gate) of every prose rule, most common first."""
