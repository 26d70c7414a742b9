"""The built-in default of the workspace's sensitive keywords (settings.SENSITIVE_KEYWORDS
unless the environment sets it), by category: what people expect kept out of shared memory.
Pure data, imported by the settings; the matching is `memstore.rules.sensitive`.

A keyword matches its own word forms (plural, past, -ing), never a word made from it with
another meaning ("confidential" does not match "confidentiality"). `{number}` in a phrase stands
for any number ("lives at {number}" holds "lives at 22 Baker Street", not "the config lives at
/etc"). Words that are ordinary at work ("operation", "hospital", "debt", "pay", "medical",
"counseling", "injury") are listed only in the phrases that make them private. Measured on
LoCoMo's dev conversations (tests/memstore/rules/test_sensitive_senses.py): 2 of 353 lines held,
both a person's own health.
"""

SENSITIVE_DEFAULT: tuple[str, ...] = (
    "confidential",
    # health and medical: care, conditions, procedures
    "diagnosis", "diagnosed with", "illness", "disease", "disorder", "sick leave", "off sick",
    "sick day", "medication", "prescription", "prescribe", "medical appointment", "medical leave",
    "medical condition", "medical history", "medical record", "medical treatment", "medical test",
    "medical reason", "medical emergency", "doctor", "dentist", "gp appointment", "in hospital",
    "admitted to hospital", "admitted to the hospital", "hospitalized", "hospitalised",
    "hospital stay", "surgery", "surgeon", "an operation on", "had an operation",
    "have an operation", "has an operation", "operated on", "biopsy", "transplant", "chemotherapy",
    "chemo", "radiotherapy", "physiotherapy", "physio", "rehab", "therapy", "therapist",
    "psychiatrist", "psychologist", "see a counselor", "see a counsellor", "counseling session",
    "counselling session", "marriage counseling", "marriage counselling", "cancer", "tumor",
    "tumour", "diabetes", "diabetic", "insulin", "asthma", "epilepsy", "seizure", "heart attack",
    "had a stroke", "dementia", "alzheimer", "hiv", "hepatitis", "depression", "depressed",
    "anxiety", "panic attack", "adhd", "autism", "autistic", "bipolar", "schizophrenia",
    "eating disorder", "addiction", "rehabilitation", "injured", "an injury", "his injury",
    "her injury", "their injury", "my injury", "antidepressant", "mental illness",
    "mental health issue", "mental health problem", "struggle with mental health",
    "mental health leave", "mental breakdown", "disability",
    # pregnancy
    "pregnant", "pregnancy", "miscarriage", "maternity", "paternity", "ivf", "fertility",
    "expecting a baby", "abortion", "prenatal",
    # a home address
    "home address", "lives at {number}", "live at {number}", "house number", "apartment number",
    # legal disputes
    "lawsuit", "sued", "suing", "litigation", "legal dispute", "legal action", "court case",
    "custody battle", "custody of", "child custody", "arrested", "criminal record",
    "restraining order", "tribunal", "grievance", "disciplinary",
    # personal finances
    "salary", "pay rise", "pay raise", "pay cut", "his pay", "her pay", "payslip", "paycheck",
    "credit card debt", "in debt", "personal debt", "student loan", "bankruptcy", "bankrupt",
    "mortgage", "credit score", "net worth",
)  # fmt: skip
