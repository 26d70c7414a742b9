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
