"""The secret corpus: realistic secret shapes (fake values, built at import from a seeded random
source so no key-shaped string sits in the repository for scanners to flag) and benign texts
that look close. Used by test_policy.py."""

import base64
import json
import random
import string

_rng = random.Random(20261130)
ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def r(n: int, alphabet: str = ALNUM) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def _b64url(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def _jwt() -> str:
    head = _b64url({"alg": "HS256", "typ": "JWT"})
    body = _b64url({"sub": r(8, "0123456789"), "name": "Ann", "iat": 1764460800})
    return f"{head}.{body}.{r(43, URLSAFE)}"


def _luhn_complete(prefix: str, length: int) -> str:
    body = prefix + r(length - len(prefix) - 1, "0123456789")
    for check in "0123456789":
        digits = body + check
        total = 0
        for i, c in enumerate(reversed(digits)):
            n = int(c) * (2 if i % 2 else 1)
            total += n - 9 if n > 9 else n
        if total % 10 == 0:
            return digits
    raise AssertionError


def _grouped(number: str, sep: str, groups=(4, 4, 4, 4)) -> str:
    parts, i = [], 0
    for g in groups:
        parts.append(number[i : i + g])
        i += g
    return sep.join(p for p in parts if p)


_visa = _luhn_complete("4", 16)
_mc = _luhn_complete("51", 16)
_mc2 = _luhn_complete("2221", 16)
_amex = _luhn_complete("37", 15)
_disc = _luhn_complete("6011", 16)
_jwt_value = _jwt()
_pem = "-----BEGIN {} PRIVATE KEY-----\nMIIEv" + r(40, B64)
ZWSP = "\u200b"

SECRETS: list[str] = [
    # key formats
    f"Stripe live key is sk_live_{r(24)}",
    f"stripe restricted key rk_live_{r(30)}",
    f"use sk_test_{r(24)} for the sandbox",
    f"webhook signing secret whsec_{r(32)}",
    f"The deploy token github_pat_11{r(20, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}_{r(59)}",
    f"ghp_{r(36)} is the CI token",
    f"gho_{r(36)}",
    f"GitLab: glpat-{r(20, URLSAFE)}",
    f"runner token glrt-{r(24, URLSAFE)}",
    f"OpenAI key sk-proj-{r(48, URLSAFE)}",
    f"sk-{r(20)}T3BlbkFJ{r(20)}",
    f"Anthropic key sk-ant-api03-{r(80, URLSAFE)}",
    f"service account sk-svcacct-{r(40, URLSAFE)}",
    f"npm publish token npm_{r(36)}",
    f"//registry.npmjs.org/:_authToken=npm_{r(36)}",
    f"Hugging Face token hf_{r(34, string.ascii_letters)}",
    f"SendGrid: SG.{r(22, URLSAFE)}.{r(43, URLSAFE)}",
    f"Slack bot token xoxb-{r(12, '0123456789')}-{r(12, '0123456789')}-{r(24)}",
    f"xoxp-{r(11, '0123456789')}-{r(11, '0123456789')}-{r(13, '0123456789')}-{r(32, HEX)}",
    f"post alerts to https://hooks.slack.com/services/T{r(8, string.ascii_uppercase)}/B{r(10, string.ascii_uppercase)}/{r(24)}",
    f"app token xapp-1-A{r(10, string.ascii_uppercase)}-{r(13, '0123456789')}-{r(64, HEX)}",
    f"AWS access key AKIA{r(16, string.ascii_uppercase + string.digits)}",
    f"ASIA{r(16, string.ascii_uppercase + string.digits)} temporary",
    f"aws_secret_access_key = {r(30)}/{r(9)}",
    f"the AWS secret key is {r(20)}+{r(19)}",
    f"AWS secret {r(40)}",
    f"Google Maps key AIza{r(35, URLSAFE)}",
    f"OAuth client secret GOCSPX-{r(28, URLSAFE)}",
    f"DigitalOcean dop_v1_{r(64, HEX)}",
    f"Shopify admin token shpat_{r(32, HEX)}",
    f"Mailgun key-{r(32, HEX)}",
    f"Twilio SK{r(32, LOWER_ALNUM)}",
    f"discord webhook https://discord.com/api/webhooks/{r(18, '0123456789')}/{r(68, URLSAFE)}",
    f"Discord bot M{r(23, URLSAFE)}.{r(6, URLSAFE)}.{r(27, URLSAFE)}",
    f"telegram bot {r(9, '0123456789')}:AA{r(33, URLSAFE)}",
    f"pypi-AgEIcHlwaS5vcmc{r(80, URLSAFE)}",
    f"square sq0csp-{r(43, URLSAFE)}",
    f"mailchimp {r(32, HEX)}-us14",
    f"The bot's Memory Console token: mct_{r(43, URLSAFE)}",
    f"mct_{r(43, URLSAFE)}",
    # connection strings and URLs
    f"prod db is postgres://app:{r(16)}@db.internal:5432/app",
    f"postgresql://admin:S3cr3t!{r(4)}@10.0.0.5/prod",
    f"mysql://root:{r(12)}@localhost/shop",
    f"mongodb+srv://ann:{r(14)}@cluster0.abcd.mongodb.net/test",
    f"redis://:{r(20)}@cache:6379/0",
    "amqp://guest:guest@rabbit:5672/",
    f"ftp://ann:{r(8)}@files.example.com/incoming",
    f"https://ann:{r(10)}@git.example.com/repo.git",
    f"smtp://mailer:{r(12)}@smtp.example.com:587",
    f"jdbc:postgresql://db:5432/app?user=app&password={r(12)}",
    f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={r(86, B64)}==;EndpointSuffix=core.windows.net",
    f"Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={r(43, B64)}=",
    f"Server=tcp:acme.database.windows.net;Database=app;User ID=app;Password={r(14)};",
    f"blob url https://acme.blob.core.windows.net/c/f.pdf?sv=2022-11-02&sig={r(40, B64)}",
    f"https://api.example.com/v1/items?api_key={r(32)}",
    f"call https://example.com/cb?access_token={r(40, URLSAFE)}",
    # tokens in prose and headers
    f"Authorization: Bearer {r(40, URLSAFE)}1",
    f"bearer {_jwt_value}",
    f"session JWT {_jwt_value}",
    f"api key: {r(32)}9",
    f"API_KEY={r(24)}7",
    f"the api secret is {r(30)}3",
    f"client_secret = '{r(32)}5'",
    f"refresh token 1//{r(60, URLSAFE)}9",
    f"signing key {r(28)}42",
    f"clé API : {r(32)}1",
    f"la clave de API es {r(28)}8",
    f"API-Schlüssel: {r(30)}6",
    # private keys
    _pem.format("RSA"),
    _pem.format("OPENSSH"),
    _pem.format("EC"),
    "-----BEGIN PRIVATE KEY-----\nMIIE" + r(30, B64),
    "-----BEGIN PGP PRIVATE KEY BLOCK-----",
    # cards
    f"card {_visa}",
    f"Visa {_grouped(_visa, ' ')}",
    f"card number {_grouped(_visa, '-')}",
    f"paid with {_grouped(_mc, '.')}",
    f"Mastercard {_grouped(_mc2, ' ')} exp 09/29",
    f"Amex {_grouped(_amex, ' ', (4, 6, 5))}",
    f"Discover {_disc}",
    f"company card: {_grouped(_mc, '.')}",
    # passwords in prose, several languages
    "my password is hunter2",
    "My password is swordfish.",
    "The wifi password is CorrectHorse42",
    "password: Tr0ub4dor&3",
    "pwd=letmein123",
    "passwd: qwerty!",
    "The passcode is 482913",
    "passcode 7741",
    "the passphrase is 'correct horse battery staple'",
    "Passphrase: blue-ocean-tiger-lamp",
    "My PIN is 4821",
    "PIN: 0915",
    "bank card PIN 7302",
    "the door code is 5521",
    "alarm code 1984",
    f"my pass{ZWSP}word is hunter2",
    f"pass{ZWSP}word: Summer2026!",
    "ｐａｓｓｗｏｒｄ： ｈｕｎｔｅｒ２",
    "password for the staging database is Xk9!mq",
    "login: admin / hunter2",
    "login admin/Passw0rd",
    "username: ann | s3cretpw",
    "credentials: deploy:Rz8#kq21",
    "mon mot de passe est soleil2024",
    "le mot de passe du wifi est Bonjour123",
    "code PIN : 4455",
    "mi contraseña es Madrid1999",
    "la contraseña del router es 'perro azul'",
    "mein Passwort ist Sommer2026",
    "Das Kennwort lautet Berlin!77",
    "Geheimzahl 3847",
    "minha senha é abacaxi123",
    "a senha do wifi é Praia2025",
    "palavra-passe: lisboa77",
    "PIN-Code 6620",
    "il mio password è Roma2024",
    "pw: Winter2026!",
    "Authorization: Basic " + base64.b64encode(b"deploy:" + r(12).encode()).decode(),
    "backup codes: 4821-9930",
    "wallet recovery phrase: apple river stone tiger lamp cloud honey eagle piano orbit sugar maple",
    "The password was changed to Winter2026!",
    "ssh root@10.0.0.5 with password Xk9!mq77",
]

BENIGN: list[str] = [
    "Uses 1Password as the team password manager",
    "Prefers Bitwarden over LastPass for password management",
    "Password resets go through the IT helpdesk",
    "The password is stored in the team vault, never in chat",
    "The password is required to open the quarterly report",
    "Reminded Ann that her password expires next week",
    "Password policy: at least 12 characters and a passphrase",
    "Password: see the vault",
    "Password: ********",
    "Wants a password manager recommendation for the family",
    "Asked how to reset a forgotten passcode on an iPhone",
    "Passkeys replace passwords on the new login page",
    "Two-factor codes arrive by SMS",
    "The token budget is 4,000 per reply",
    "Daily token budget: 500000 tokens",
    "Max tokens per request is 8192",
    "The learner spent 12,345 tokens yesterday",
    "Tokens are rotated every 90 days by the platform team",
    "The API key lives in the secrets manager, not here",
    "API keys are issued from the settings page",
    "Access token expiry is one hour",
    "Secret Santa budget is 30 euros",
    "The secret to good coffee is fresh beans",
    "Order #112-3456789-1234567 arrived on Tuesday",
    "Order number 4471-2290 shipped via DHL",
    "Invoice INV-2026-000451 is overdue",
    "Tracking number 1Z999AA10123456784",
    "Reads 'Thinking, Fast and Slow', ISBN 978-0-374-53355-7",
    "ISBN 9780306406157 is the physics textbook",
    "ISBN-10 0-306-40615-2",
    "Phone: +1 415 555 2671",
    "Call Sam at +44 20 7946 0958",
    "Brazilian office phone +55 11 91234 5678",
    "Office line 030 1234 5678",
    "Mobile 06 12 34 56 78",
    "Fixed in commit 3f2a9c1b7e4d5f6a8b9c0d1e2f3a4b5c6d7e8f90",
    "Merged commit a94a8fe5ccb19ba61c4c0873d391e987982fbbd3 into main",
    "Short hash 3f2a9c1 broke the build",
    "SHA-256 of the release: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "Ticket 550e8400-e29b-41d4-a716-446655440000 tracks the outage",
    "Jira PROJ-4821 covers the migration",
    "Support ticket #48213 was closed",
    "Docs are at https://docs.example.com/guide?page=2&lang=en",
    "The staging site is https://staging.example.com:8443/app",
    "Clone with git@github.com:acme/memory.git",
    "Repository ssh://git@github.com/acme/memory.git",
    "Postgres runs at postgres://db.internal:5432/app",
    "Connect with postgresql://app@localhost/app (password in the vault)",
    "Ann's email is ann@example.com",
    "Meeting link https://meet.example.com/abc-defg-hij",
    "Shared doc https://docs.google.com/document/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs/edit",
    "Video https://www.youtube.com/watch?v=dQw4w9WgXcQ",
    "Search https://example.com/search?q=password+manager",
    "Pinned the release notes to the channel",
    "Pin the Node version to 22.11.0",
    "Pin 13 on the board drives the LED",
    "The zip code is 94107",
    "Area code 415 covers San Francisco",
    "Error code 5003 means the disk is full",
    "Promo code SPRING25 gives 25% off",
    "Flight LH1234 departs at 07:45",
    "Booking reference K7XQ2P",
    "Room 1204 at the Lisbon hotel",
    "IBAN checks happen in the finance tool",
    "Budget for the offsite is 12,500 EUR",
    "Revenue grew from 1,234,567 to 2,345,678 this year",
    "The build number is 2026.11.30.1742",
    "Version 4.12.0-rc.3 ships next week",
    "Invoice total 4,111.11 EUR",
    "Timestamp 1764460800 is the cut-over",
    "Lat/long 38.7223, -9.1393 for the venue",
    "Serial number SN-4A7F-22B9",
    "User ID 4812 belongs to Ann",
    "Username is ann.smith on the wiki",
    "Login page / dashboard redesign is due Friday",
    "Credentials are handled by SSO",
    "Log in with Google SSO, not a password",
    "Prefers the Key Largo venue",
    "The key to the office is with reception",
    "Keyboard shortcut Ctrl+Shift+P opens the palette",
    "Ran sk-learn benchmarks on the new laptop",
    "Uses scikit-learn and pandas",
    "The sk_ prefix marks secret keys in Stripe docs",
    "Slack channel #ops-alerts gets the pages",
    "Base64 is used for email attachments",
    "The JWT library was upgraded to 2.10",
    "AWS region eu-west-1 hosts the cluster",
    "Mot de passe oublié ? Utiliser le lien de réinitialisation",
    "Le mot de passe est obligatoire pour se connecter",
    "La contraseña es obligatoria",
    "Das Passwort ist erforderlich",
    "A senha é obrigatória para entrar",
    "Gestionnaire de mots de passe : Bitwarden",
    "Wants passwords to rotate every quarter",
    "Contraseñas se guardan en el gestor de la empresa",
    "Passwort-Manager: KeePassXC",
    "Gerenciador de senhas da equipe é o 1Password",
    "PIN pad at the door was replaced",
    "Uses a YubiKey for two-factor",
    "Rotated the SSH host keys after the audit",
    "Private key management is the security team's job",
    "The word 'password' should never appear in logs",
    "Temperature 21.5 degrees in the server room",
    "Coordinates 4111 1111 in the map grid",
    "Project codename Bluebird starts in March",
    "The cache key is user:42:profile",
    "Bearer tokens expire after an hour",
    "Ann likes hunter green for the brand",
    "Secret ingredient in the soup is smoked paprika",
    "The Wi-Fi network name is AcmeGuest",
    "Parking spot 42 on level 3",
    "Tax ID is kept by accounting",
    "The sprint is called Token Economy",
    "Ran 3 x 4 x 5 experiments",
    "Guest list: Ann, Sam, Joe",
    "Boarding pass: seat 12B, gate 40",
    "Basic plan costs 9 euros a month",
    "Backup codes are printed and kept in the safe",
    "The recovery phrase is written on paper in the office safe",
    "PW Consulting sent the invoice",
]


# ---------------------------------------------------------------------------------------------
# Families the first corpus lacked (issue 26). Every value is built here, from its prefix and
# random characters: nothing key-shaped is committed.

UPPER_DIGITS = string.ascii_uppercase + string.digits
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def mixed(n: int, alphabet: str = ALNUM) -> str:
    """n random characters with at least one lower-case letter, capital and digit."""
    while True:
        value = r(n, alphabet)
        if all(any(test(c) for c in value) for test in (str.islower, str.isupper, str.isdigit)):
            return value


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _der(prefix_hex: str, size: int) -> str:
    """The base64 body of a private key without its PEM lines: a real DER prefix, random rest."""
    return _b64(bytes.fromhex(prefix_hex) + _rng.randbytes(size))


def _jwt_rs256() -> str:
    head = _b64url({"alg": "RS256", "typ": "JWT", "kid": r(16, HEX)})
    body = _b64url({"sub": r(10, "0123456789"), "iss": "https://id.example.com", "exp": 1764464400})
    return f"{head}.{body}.{r(342, URLSAFE)}"


_jwt_rs = _jwt_rs256()
_WORDS_TEXT = (
    "apple river stone tiger lamp cloud honey eagle piano orbit sugar maple zebra canvas "
    "velvet harbor copper meadow rocket silver garden winter candle pepper"
)
_words = _WORDS_TEXT.split()


def _seed(n: int) -> str:
    return " ".join(_rng.choice(_words) for _ in range(n))


# Bare key values, one per family: used as whole texts, as metadata values and for evasions.
KEY_VALUES: dict[str, str] = {
    "vault-service": f"hvs.{r(90, URLSAFE)}",
    "vault-batch": f"hvb.{r(138, URLSAFE)}",
    "vault-legacy": f"s.{mixed(24)}",
    "databricks": f"dapi{r(32, HEX)}",
    "databricks-suffix": f"dapi{r(32, HEX)}-2",
    "pulumi": f"pul-{r(40, HEX)}",
    "postman": f"PMAK-{r(24, HEX)}-{r(34, HEX)}",
    "sentry-user": f"sntryu_{r(64, HEX)}",
    "sentry-org": f"sntrys_{r(120, URLSAFE)}",
    "airtable": f"pat{mixed(14)}.{r(64, HEX)}",
    "grafana-sa": f"glsa_{r(32)}_{r(8, HEX)}",
    "grafana-cloud": f"glc_{r(80, URLSAFE)}",
    "newrelic": f"NRAK-{r(27, UPPER_DIGITS)}",
    "square-access": f"EAAA{r(60, URLSAFE)}",
    "square-sq0atp": f"sq0atp-{r(22, URLSAFE)}",
    "facebook": f"EAACEdEose0cBA{mixed(120)}",
    "braintree": f"access_token$production${r(16, LOWER_ALNUM)}${r(32, HEX)}",
    "jwt-hs256": _jwt_value,
    "jwt-rs256": _jwt_rs,
    "age": f"AGE-SECRET-KEY-1{r(58, BECH32)}",
    "rsa-body": _der("308204a40201000282010100", 96),
    "pkcs8-body": _der("308204be020100300d06092a864886f70d0101010500048204a8", 96),
    "ec-body": _der("30770201010420", 32 + 40),
    "ec-pkcs8-body": _der(
        "308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b0201010420", 80
    ),
    "ed25519-body": _der("302e020100300506032b657004220420", 32),
    "openssh-body": _b64(b"openssh-key-v1\x00" + _rng.randbytes(90)),
    "stripe": f"sk_live_{r(24)}",
    "aws": f"AKIA{r(16, UPPER_DIGITS)}",
    "github": f"ghp_{r(36)}",
    "slack": f"xoxb-{r(12, '0123456789')}-{r(12, '0123456789')}-{r(24)}",
    "openai": f"sk-proj-{r(48, URLSAFE)}",
    "memory-console": f"mct_{r(43, URLSAFE)}",
}

FAMILY_SECRETS: list[str] = [
    *KEY_VALUES.values(),
    f"Vault token for CI: {KEY_VALUES['vault-service']}",
    f"VAULT_TOKEN={KEY_VALUES['vault-legacy']}",
    f"Databricks PAT {KEY_VALUES['databricks']} for the ETL job",
    f"pulumi login with {KEY_VALUES['pulumi']}",
    f"Postman API key is {KEY_VALUES['postman']}",
    f"Sentry auth token {KEY_VALUES['sentry-user']}",
    f"Airtable personal access token: {KEY_VALUES['airtable']}",
    f"Grafana service account token {KEY_VALUES['grafana-sa']}",
    f"New Relic user key {KEY_VALUES['newrelic']}",
    f"Square production token {KEY_VALUES['square-access']}",
    f"Square sandbox {KEY_VALUES['square-sq0atp']}",
    f"FB page token {KEY_VALUES['facebook']}",
    f"Braintree: {KEY_VALUES['braintree']}",
    f"old Airtable key key{mixed(14)}",
    f"Grafana API key eyJrIjoi{r(40, ALNUM)}",
    f"New Relic license {r(36, HEX)}NRAL",
    f"{r(64, B64)} -----END RSA PRIVATE KEY-----",
    # environment-file lines
    f"STRIPE_API_KEY={r(32)}",
    f"OPENAI_API_KEY={mixed(40)}",
    "DB_PASSWORD=hunter2",
    f"DB_PASSWORD={mixed(14)}",
    f"export DATABASE_PASSWORD='{mixed(16)}'",
    "POSTGRES_PASSWORD: s3cr3t-pg",
    f'redis_password = "{mixed(12)}"',
    f"TWILIO_AUTH_TOKEN={r(32, HEX)}",
    f"TWILIO_ACCOUNT_SID=AC{r(32, HEX)}",
    f"DD_API_KEY={r(32, HEX)}",
    f"DATADOG_APP_KEY={r(40, HEX)}",
    f"CLOUDFLARE_API_TOKEN={r(40, URLSAFE)}",
    f"CF_API_KEY={r(37, HEX)}",
    f"SENDGRID_API_KEY=SG.{r(22, URLSAFE)}.{r(43, URLSAFE)}",
    f"SECRET_KEY=django-insecure-{r(40, LOWER_ALNUM + '!@#%^&*(-_=+)')}",
    f"MAILGUN_SIGNING_KEY={r(32, HEX)}",
    '{"db_password": "Tig3r-stripes"}',
    f'config: {{"password": "hunter2", "api_key": "{mixed(24)}"}}',
    f"token: '{mixed(32)}' in the YAML",
    f"'client_secret': '{mixed(30)}'",
    # JWTs, also as cookies
    f"Cookie: session={_jwt_value}; Path=/; HttpOnly",
    f"Set-Cookie: auth_token={_jwt_rs}; Secure",
    f"id_token {_jwt_rs}",
    # private-key material without its PEM lines, PuTTY and age keys
    f"ssh key body {KEY_VALUES['openssh-body']}",
    f"the server key starts {KEY_VALUES['rsa-body']}",
    f"PuTTY-User-Key-File-3: ssh-ed25519 Encryption: none Comment: deploy Public-Lines: 2 {r(68, B64)}",
    f"PuTTY-User-Key-File-2: ssh-rsa Encryption: none Private-Lines: 14 {r(64, B64)}",
    f"Private-Lines: 1 {r(44, B64)} Private-MAC: {r(64, HEX)}",
    f"age key {KEY_VALUES['age']}",
    # prose
    "the wifi pass is Bonjour123",
    "Wi-Fi pass: sunflower",
    "the router pass is Tr4vel!",
    "my passphrase is correct horse battery staple",
    "Passphrase for the backup drive: orbit lantern maple seven",
    "the passphrase for my GPG key is purple monkey dishwasher",
    f"seed phrase: {_seed(12)}",
    f"my recovery phrase is {_seed(24)}",
    f"Wallet recovery words are {_seed(12)}",
    "mnemonic: " + " ".join(f"{i}. {w}" for i, w in enumerate(_seed(12).split(), 1)),
    f"frase semilla: {_seed(12)}",
    "login ann / swordfish",
    "login: deploy / Rz8kq21x",
    "user: deploy pass: Rz8kq21",
    "username bob password swordfish",
    "user admin, password Winter2026!",
    "credentials for the NAS are admin / hunter2",
    "creds for staging: deploy:Xk9mq77",
    "the credentials for the router are admin and swordfish",
    "Credentials: root / toor",
    "safe combination is 12-34-56",
    "The lock combo is 4-21-9",
    "office safe combination: 10 20 30",
    "combinaison du coffre : 12-34-56",
    "SSH in with root / Xk9!mq",
    "ssh in as deploy, password Winter2026",
    "ssh root:toor@10.0.0.5",
    # PINs and access codes: French, Spanish, German, Portuguese
    "le code de la porte est 4521",
    "mon code PIN est le 4455",
    "digicode 4521",
    "code d'accès : 8842",
    "Le code de l'alarme est 2580",
    "el PIN de mi tarjeta es 1234",
    "código de la puerta: 7788",
    "código de acceso 5521",
    "la clave del portal es 3344",
    "die PIN lautet 1234",
    "Türcode 4711",
    "Alarmcode: 2580",
    "Zugangscode für das Büro ist 7788",
    "meine Geheimzahl ist 9911",
    "o PIN do cartão é 9876",
    "código do portão 1357",
    "o código de acesso é 3344",
    "senha do cartão 2468",
]


def _groups(value: str, size: int, sep: str) -> str:
    return sep.join(value[i : i + size] for i in range(0, len(value), size))


_CYRILLIC = str.maketrans("aceopxyAEKMHOPCTXBsi", "асеорхуАЕКМНОРСТХВѕі")
_GREEK = str.maketrans("AEZHIKMNOPTYXBov", "ΑΕΖΗΙΚΜΝΟΡΤΥΧΒον")


def _evasions(value: str) -> dict[str, str]:
    """Every way the issue names of hiding one key value."""
    return {
        "cyrillic": value.translate(_CYRILLIC),
        "greek": value.translate(_GREEK),
        "zero-width": ZWSP.join(value[i : i + 3] for i in range(0, len(value), 3)),
        "word-joiner": "\u2060".join(value),
        "base64": f"key (base64): {_b64(value.encode())}",
        "urlsafe-base64": base64.urlsafe_b64encode(value.encode()).decode().rstrip("="),
        "hex": f"hex {value.encode().hex()}",
        "space-split": f"the key is {_groups(value, 4, ' ')}",
        "dash-split": _groups(value, 5, "-"),
        "char-split": " ".join(value),
        "percent": value.replace("_", "%5F").replace("-", "%2D").replace(".", "%2E"),
        "full-width": "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in value),
    }


_EVADED = ["stripe", "aws", "github", "slack", "openai", "memory-console", "vault-service",
           "databricks", "postman", "newrelic", "grafana-sa", "jwt-hs256", "age", "pulumi"]  # fmt: skip

EVASIONS: dict[str, str] = {
    f"{family}/{how}": text
    for family in _EVADED
    for how, text in _evasions(KEY_VALUES[family]).items()
    if text != KEY_VALUES[family]  # nothing to fold in it: not an evasion
}
EVASIONS |= {
    "prose/cyrillic": "my раѕѕword is hunter2",
    "prose/greek": "ΡΙΝ: 4821",
    "prose/zero-width": f"the wifi pa{ZWSP}ss is Bonjour123",
    "prose/tag-characters": "my pass\U000e0041word is hunter2",
}


# ---------------------------------------------------------------------------------------------
# Look-alikes: texts a careless detector refuses. Generated ones first (values random, shapes
# real), then prose about passwords in general.


def _uuid() -> str:
    import uuid

    return str(uuid.UUID(int=_rng.getrandbits(128), version=4))


def _generated_look_alikes() -> list[str]:
    out = []
    for _ in range(25):
        out.append(f"Ticket {_uuid()} tracks the outage")
        out.append(f"Fixed in commit {r(40, HEX)}")
        out.append(f"Short hash {r(7, HEX)} broke the build; see {r(12, HEX)}")
        a, b, c = _rng.randint(0, 30), _rng.randint(0, 99), _rng.randint(0, 999)
        out.append(
            f"Upgraded to v{a}.{b}.{c}-rc.{_rng.randint(1, 9)}+build.{_rng.randint(100, 99999)}"
        )
        out.append(
            f"Order #{_rng.randint(100, 999)}-{_rng.randint(10**6, 10**7)}-{_rng.randint(10**6, 10**7)} arrived"
        )
        out.append(
            f"Order number {r(2, string.ascii_uppercase)}-{_rng.randint(10**7, 10**8)} shipped"
        )
        out.append(
            f"Invoice total €{_rng.randint(1, 99)},{_rng.randint(100, 999)}.{_rng.randint(10, 99)}"
        )
        out.append(
            f"Price went from ${_rng.randint(10, 999)}.{_rng.randint(10, 99)} to ${_rng.randint(10, 999)}.99"
        )
        out.append(
            f"Call +{_rng.randint(1, 99)} {_rng.randint(100, 999)} {_rng.randint(100, 999)} {_rng.randint(1000, 9999)}"
        )
        out.append(
            f"Phone ({_rng.randint(200, 999)}) {_rng.randint(200, 999)}-{_rng.randint(1000, 9999)}"
        )
        y, m, d = _rng.randint(1990, 2030), _rng.randint(1, 12), _rng.randint(1, 28)
        out.append(
            f"Deadline {y}-{m:02d}-{d:02d}T{_rng.randint(0, 23):02d}:{_rng.randint(0, 59):02d}:00Z"
        )
        out.append(f"Released {y}-{m:02d}-{d:02d}, patched {y}-{m:02d}-{d + 1:02d}")
        out.append(f"SHA-256 {r(64, HEX)}")
    return out


_CHEMISTRY = [
    "Glucose is C6H12O6", "Sulfuric acid, H2SO4, is stored in cabinet B", "Acetic acid CH3COOH",
    "Caffeine has the formula C8H10N4O2", "Baking soda is NaHCO3", "Slaked lime: Ca(OH)2",
    "Potassium permanganate KMnO4 stains", "Ethanol C2H5OH", "Ammonium sulfate (NH4)2SO4",
    "Rust is mostly Fe2O3", "Aspirin C9H8O4", "Ibuprofen C13H18O2", "Paracetamol C8H9NO2",
    "Chlorophyll a is C55H72O5N4Mg", "Sucrose C12H22O11", "Hydrogen peroxide H2O2 at 3 %",
    "Sodium hypochlorite NaClO in bleach", "Calcium carbonate CaCO3", "Methane CH4 and CO2",
    "Cholesterol C27H46O", "Testosterone is C19H28O2", "Dopamine C8H11NO2",
    "Penicillin G: C16H18N2O4S", "Vitamin C, C6H8O6", "Quinine C20H24N2O2",
]  # fmt: skip
_PASSWORD_PROSE = [
    "I should change my password more often", "Password managers are useful",
    "Never share your PIN with anyone", "She reset her password after the phishing email",
    "Use a passphrase instead of a password", "The login page asks for a username and password",
    "Our SSH keys are rotated quarterly", "Credentials for the staging server are in 1Password",
    "The safe combination was changed last week", "Recovery phrases should be written on paper",
    "Forgot the wifi password again, asked reception", "The wifi pass is on the fridge",
    "Seed phrases must never be typed into a website", "My bank asks for a PIN and a card reader",
    "Two-factor codes are better than SMS", "Passwords should be at least 12 characters long",
    "The door code changes every month", "Ask Sam for the door code, don't write it down",
    "The passphrase is long and hard to guess", "Credentials are rotated by the vault",
    "SSH in with your own key, never a shared password", "ssh as deploy using the bastion",
    "Login with SSO, user accounts are managed by IT", "User admin has too many rights",
    "Username and password fields were swapped in the form", "Combination locks are cheap",
    "The combination of the two datasets worked well", "Access codes are handed out at the desk",
    "She uses the same password everywhere, which worries me",
    "Password rotation policy was relaxed by NIST", "The PIN pad at the door was replaced",
    "Hardware wallets keep the seed offline", "The backup codes are in the office safe",
    "API keys must be stored in the secret manager", "Token limits apply per user",
    "Je dois changer mon mot de passe", "Olvidé mi contraseña otra vez",
    "Ich habe mein Passwort vergessen", "Esqueci minha senha do banco",
    "Le code PIN est demandé à chaque paiement", "El PIN se cambia en el cajero",
    "Die PIN wird per Post geschickt", "O PIN é enviado pelo correio",
    "Le digicode de l'immeuble a changé", "La combinación ganadora fue 3-1",
    "The meeting moved to 10-11-12 Dec", "Scores were 12-34-56 across three rounds",
    "Env files hold DB_PASSWORD and API keys, never commit them",
    "Set DB_PASSWORD in the environment, not in settings.py", "API_KEY=<your key here>",
    "DB_PASSWORD=${DB_PASSWORD}", "SECRET_KEY = os.environ['SECRET_KEY']",
    "Set the TOKEN_BUDGET=4000 for the learner", "MAX_TOKENS=8192 for the big model",
    "The JWT header says alg HS256", "RS256 tokens are verified with the public key",
    "PuTTY can convert keys to OpenSSH format", "age is a simple file encryption tool",
    "The Vault cluster runs on three nodes", "Databricks jobs run nightly",
    "Pulumi manages the staging stack", "Postman collections live in the repo",
    "Sentry caught 12 errors overnight", "Airtable base for the CRM", "Grafana dashboard 42",
    "New Relic APM is enabled", "Square terminal at the shop", "Facebook page for the bakery",
    "Braintree handles card payments", "Cloudflare in front of the site", "Datadog agent v7",
    "Twilio sends the SMS reminders", "The hvs prefix marks Vault service tokens",
    "Base64 of hello world is aGVsbG8gd29ybGQ=", "Hex 48656c6c6f means Hello",
    "The key takeaway: ship smaller changes", "Key West trip in March",
    "Chapter 4 4 2 of the manual", "Room A-12 B-14 C-16 are booked",
    "Serial AB12-CD34-EF56 on the router", "Coupon XK12 QP34 RT56 expired",
    "Flight LH 1234 then LX 5678", "ISBN 978-3-16-148410-0",
    "IP 192.168.10.254 is the printer", "MAC 3c:22:fb:9a:1e:07 is the laptop",
    "Bus 42 then tram 17 to the office", "Grid reference 4111 1111 2222 on the map",
]  # fmt: skip

LOOK_ALIKES: list[str] = _generated_look_alikes() + _CHEMISTRY + _PASSWORD_PROSE
LOOK_ALIKES += [
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "GUID {3F2504E0-4F89-11D3-9A0C-0305E82C3301} is the COM class",
    "pod web-5f7b9c8d4-x2kq9 restarted twice",
    f"Image digest sha256:{r(64, HEX)}",
    "Google doc id 1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms",
    "Stripe customer cus_NffrFeUfNV2Hib and payment pi_3MtwBwLkdIwHu7ix28a3tqPa",
    "Slack channel C024BE91L is #ops",
    "Role arn:aws:iam::123456789012:role/deploy",
    "Airtable base appXy12Qw34Er56Ty",
    "PUBLIC_KEY_PATH=/etc/keys/pub.pem",
    "NODE_ENV=production and LOG_LEVEL=info",
    "TOKEN_TTL=3600 seconds",
    "DJANGO_SECRET_KEY_FILE=/run/secrets/django",
    "Query: SELECT id FROM users WHERE password_hash = ?",
    "The pin is in the drawer next to the router",
    "PIN 2 of the chip is ground",
    "Door codes are 4 digits long",
    "Alarm code reset on 2026-11-30",
    "The combination of 3, 5 and 7 works",
    "combination 3, 5, 7 worked best in the trial",
    "Safe combination changed on 12-01-2026 by facilities",
    "user ann passed the security training",
    "user bob passwordless login is enabled",
    "Login ann / Sam for the shared calendar page",
    "Credentials for the demo are on the wiki",
    "ssh as deploy using the bastion host",
    "SSH with agent forwarding only",
    "Tracking 1Z999AA10123456784 via UPS",
    "Release tag release-2026-11-30-1 went out",
    "Extension 555-0100 ext 42",
    "Kubernetes secret db-password-secret holds the value",
    "The seed round closed at 2 million",
    "Recovery took 3 days after the outage",
    "Backup window is 02:00-04:00 UTC",
    "Wallet app on the phone is Apple Pay",
    "getUserAccountSettingsById is the slow call",
    "Token count 128000 per context window",
    "User-Agent Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36",
    "Password123 is the most common password, never use it",
    "Run `pass show email` to read it from the store",
    "db_password: required",
    '{"password": "", "token": null}',
    '{"password": "<set me>", "api_key": "${API_KEY}"}',
    '"token": "expired" in the last response',
]


def look_alikes_by_shape(n: int, seed: int = 26) -> dict[str, list[str]]:
    """`n` generated texts of each look-alike shape the issue names, in sentences."""
    rng = random.Random(seed)

    def digits(k: int) -> str:
        return "".join(rng.choice("0123456789") for _ in range(k))

    def pick(*options: str) -> str:
        return rng.choice(options)

    elements = ["C", "H", "O", "N", "S", "P", "Na", "Cl", "K", "Ca", "Fe", "Mg", "Br", "Si"]
    shapes = {
        "version": lambda: (
            pick("v", "", "version ", "Python ", "node@")
            + ".".join(str(rng.randint(0, 40)) for _ in range(rng.randint(2, 4)))
            + pick("", f"-rc.{rng.randint(1, 9)}", f"-beta.{rng.randint(1, 20)}", f"+{digits(6)}")
        ),
        "uuid": lambda: (
            pick("ticket ", "id ", "request ", "")
            + (_uuid_from(rng) if rng.random() < 0.7 else _uuid_from(rng).upper())
        ),
        "commit": lambda: (
            pick("commit ", "fixed in ", "sha ", "rev ")
            + "".join(rng.choice(HEX) for _ in range(pick(7, 8, 12, 40, 64)))
        ),
        "order": lambda: (
            pick("Order #", "order no. ", "PO-", "Invoice INV-", "Ref ")
            + pick(
                f"{digits(3)}-{digits(7)}-{digits(7)}",
                digits(rng.randint(6, 12)),
                f"{rng.choice(string.ascii_uppercase)}{digits(8)}",
                f"{digits(4)}-{digits(4)}",
            )
        ),
        "price": lambda: (
            pick("$", "€", "£", "USD ", "CHF ")
            + f"{rng.randint(1, 999)},{digits(3)}.{digits(2)}"
            + pick("", " per month", " incl. VAT")
        ),
        "phone": lambda: (
            pick("call ", "phone ", "mobile ", "")
            + pick(
                f"+{rng.randint(1, 99)} {digits(3)} {digits(3)} {digits(4)}",
                f"({digits(3)}) {digits(3)}-{digits(4)}",
                f"+{rng.randint(1, 99)}{digits(10)}",
                f"0{digits(2)} {digits(4)} {digits(4)}",
                f"{digits(3)}.{digits(3)}.{digits(4)}",
            )
        ),
        "iso-date": lambda: (
            f"{rng.randint(1970, 2050)}-{rng.randint(1, 12):02d}-"
            f"{rng.randint(1, 28):02d}"
            + pick(
                "", f"T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"
            )
            + pick(" deadline", " release", "")
        ),
        "chemical": lambda: (
            pick("formula ", "compound ", "")
            + "".join(
                rng.choice(elements) + pick("", str(rng.randint(2, 60)))
                for _ in range(rng.randint(2, 6))
            )
        ),
        "password-prose": lambda: (
            pick(
                "I should change my password more often",
                "Password managers are useful",
                "She forgot her PIN again",
                "The wifi password is on the fridge",
                "Use a long passphrase",
                "Credentials are in the vault",
                "Never share your recovery phrase",
                "The login page asks for a username and password",
                "Reset the door code next month",
                "Change the safe combination every year",
            )
            + pick("", ".", " today", f" (ticket {digits(5)})", " before Friday")
        ),
    }
    return {name: [make() for _ in range(n)] for name, make in shapes.items()}


def _uuid_from(rng: random.Random) -> str:
    import uuid

    return str(uuid.UUID(int=rng.getrandbits(128), version=4))
