#!/usr/bin/env python3
# derive_terminology.py -- build the offline drug terminology under corpus/terminology/.
#
# Usage:   python3 scripts/derive_terminology.py [DATA_DIR]
#          DATA_DIR defaults to <repo>/../shared/data.  Needs python3 (stdlib only) and
#          Debian's wamerican word list (/usr/share/dict/american-english,
#          `apt-get install -y wamerican`).  Output is deterministic: sorted rows, LF line
#          endings, no timestamps; running it twice gives byte-identical files.
#
# Inputs (paths relative to DATA_DIR; SHA-256 of each is written to VERSION):
#   rxnorm/rxnorm_prescribe_2025/rxnorm_concepts.tsv, rxnorm_relations.tsv
#       NLM RxNorm Current Prescribable Content 2025-10-06 (flattened).  No UMLS licence
#       needed.  Its "A" ingredients (and the brands of products made only of them) are
#       missing -- see data/SOURCES.md section 1.
#   rxnorm/a_ingredients_supplement.tsv, rxnorm/a_ingredients_verified_extra.tsv
#       hand-built RxNorm IN/PIN rows for the missing "A" ingredients.
#   rxnorm/a_brand_names_rxterms2013.tsv, rxnorm/rxterms_2013/RxTerms201307.txt
#       NLM RxTerms 2013-07 (free NLM product): brand names of SBDs and their generics.
#   openfda/FDA_openfda/drugsatfda_Products.txt
#       Drugs@FDA products, July 2019 (openFDA, CC0 public domain).
#   conversations/aci-bench/*.csv (column note), conversations/mts-dialog/*.csv
#       (column section_text): reference clinical notes, CC-BY-4.0, used only to count
#       frequent clinical words.
#   /usr/share/dict/american-english: SCOWL-derived word list (Kevin Atkinson et al.,
#       permissive licence, copied verbatim to LICENSE-SCOWL.txt).
#
# Outputs (corpus/terminology/):
#   concepts.tsv          rxcui, tty, name, ingredient_rxcuis (IN rxcuis, '|'), source
#   ambiguous_brands.txt  brand names that are ordinary English words (lower case)
#   dose_forms.tsv        per single-ingredient IN: dose forms and strengths
#   synonyms.tsv          hand-curated abbreviations / lay names -> ingredient names
#   english_words.txt     words never to be treated as (misspelled / phantom) drugs
#   VERSION               key=value: versions, counts, input SHA-256s
#   README.md             description, regeneration command, attribution / licences
#   LICENSE-SCOWL.txt     verbatim copy of /usr/share/doc/wamerican/copyright
#
# Licences: RxNorm / RxTerms -- "This product uses publicly available data courtesy of
# the U.S. National Library of Medicine (NLM), National Institutes of Health, Department
# of Health and Human Services; NLM is not responsible for the product and does not
# endorse or recommend this or any other product."  openFDA / Drugs@FDA: CC0.  ACI-Bench
# and MTS-Dialog: CC-BY-4.0 (only word counts are derived).  SCOWL / wamerican: see
# LICENSE-SCOWL.txt.  This script itself is part of scribe-trials.

import collections
import csv
import glob
import hashlib
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.normpath(
    os.path.join(REPO, "..", "shared", "data"))
OUT = os.path.join(REPO, "corpus", "terminology")
DICT_FILE = "/usr/share/dict/american-english"
DICT_COPYRIGHT = "/usr/share/doc/wamerican/copyright"

RXNORM_RELEASE = "2025-10-06"
SRC_RX = "rxnorm-2025-10-06"
SRC_SUP = "rxnorm-a-supplement"
SRC_RXT = "rxterms-2013"
SRC_FDA = "drugsatfda-2019"
SOURCE_ORDER = [SRC_RX, SRC_SUP, SRC_RXT, SRC_FDA]
TTY_ORDER = ["IN", "PIN", "MIN", "BN"]

F_CONCEPTS = "rxnorm/rxnorm_prescribe_2025/rxnorm_concepts.tsv"
F_RELATIONS = "rxnorm/rxnorm_prescribe_2025/rxnorm_relations.tsv"
F_SUPP = "rxnorm/a_ingredients_supplement.tsv"
F_EXTRA = "rxnorm/a_ingredients_verified_extra.tsv"
F_ABRANDS = "rxnorm/a_brand_names_rxterms2013.tsv"
F_RXTERMS = "rxnorm/rxterms_2013/RxTerms201307.txt"
F_FDA = "openfda/FDA_openfda/drugsatfda_Products.txt"

csv.field_size_limit(1 << 30)
INPUTS_USED = []  # (label, absolute path)


def die(msg):
    sys.stderr.write("derive_terminology: ERROR: " + msg + "\n")
    sys.exit(1)


def note(msg):
    sys.stderr.write("derive_terminology: " + msg + "\n")


def data_path(rel):
    p = os.path.join(DATA, rel)
    if not os.path.isfile(p):
        die("missing input file " + p)
    if rel not in [r for r, _ in INPUTS_USED]:
        INPUTS_USED.append((rel, p))
    return p


def read_tsv(rel):
    with open(data_path(rel), encoding="utf-8", newline="") as f:
        lines = f.read().replace("\r\n", "\n").split("\n")
    header = lines[0].split("\t")
    rows = []
    for ln in lines[1:]:
        if ln:
            rows.append(dict(zip(header, ln.split("\t"))))
    return rows


def norm(s):
    """Lexicon key: lower case, single spaces."""
    return " ".join(s.lower().split())


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# --------------------------------------------------------------------------- data tables

# Salt / ester / hydrate / vehicle words that may be stripped from either end of an
# ingredient string to reach the base ingredient ("ALBUTEROL SULFATE" -> albuterol).
# Only used when the full string is not itself a known IN/PIN name.
SALT_WORDS = set("""
hydrochloride dihydrochloride trihydrochloride hcl hydrobromide hydroiodide sulfate
bisulfate disulfate sulphate sodium disodium trisodium potassium dipotassium calcium
magnesium zinc lithium ammonium aluminum besylate besilate maleate dimaleate mesylate
dimesylate methanesulfonate tartrate bitartrate hemitartrate citrate dicitrate acetate
diacetate triacetate phosphate diphosphate biphosphate succinate fumarate hemifumarate
hyclate lactate gluconate propionate dipropionate valerate furoate xinafoate tromethamine
meglumine bromide methylbromide chloride iodide nitrate mononitrate oxalate pamoate
palmitate stearate tosylate napsylate salicylate saccharate aspartate benzoate estolate
ethylsuccinate edisylate enanthate cypionate decanoate undecanoate hexanoate lauroxil
monohydrate dihydrate trihydrate tetrahydrate pentahydrate hemihydrate sesquihydrate
hydrate anhydrous recombinant usp base olamine axetil pivoxil proxetil cilexetil
medoxomil embonate teoclate sulfosalicylate glycinate carbonate hemisulfate
""".split())

# Words that, together with a product's own ingredient words and salt words, make a
# Drugs@FDA / RxTerms "brand" a generic name ("ACETAMINOPHEN AND CODEINE PHOSPHATE").
GENERIC_FILLER = set("""
and with w in of for plus or the a
plastic container containers glass bottle vial vials flexible bag premix premixed
dextrose water sterile bacteriostatic saline lactated ringer ringers normal
preservative free pf sugar alcohol dye
injection injectable infusion solution suspension emulsion concentrate powder tablet
tablets tab tabs capsule capsules cap caps cream ointment gel lotion foam shampoo
syrup elixir liquid drops drop spray aerosol inhaler inhalation nebulizer patch film
kit pack suppository suppositories lozenge troche granules pellet implant insert
oral topical ophthalmic otic nasal vaginal rectal dental sublingual buccal
transdermal intravenous intramuscular subcutaneous iv im sc
extended release delayed sustained controlled modified immediate chewable
dispersible disintegrating orally effervescent enteric coated film-coated
er xr sr la cr dr ec xl ir odt
double strength ds ss pediatric paediatric adult adults children childrens infant
infants junior regular maximum extra mg mcg ml gm units unit percent
usp nf compound compounded bulk pharmacy novaplus premierpro rx
human recombinant synthetic natural purified electrolytes emulsified micronized
lyophilized liposomal copackaged package co packaged tabs formula no plain single
molar scored viscous apap asa peg acetonide
""".split())

# Formulation / device suffixes stripped to derive a base brand ("ProAir HFA" -> ProAir).
FORM_SUFFIXES = set("""
hfa xr er sr xl cr la odt dr ec xt ir
diskus respimat ellipta digihaler respiclick rotacaps rotadisk autohaler inhaler
flexpen kwikpen solostar flextouch autoinjector pen
""".split())

# Older (RxTerms 2013) spellings of RxNorm 2025 ingredient names.
OLD_NAMES = {
    "nph insulin, human": "insulin isophane, human",
    "regular insulin, human": "insulin, regular, human",
    "cyanocobalamin": "vitamin b12",      # RxNorm 2025 names these products "vitamin B12"
    "phytonadione": "vitamin k1",         # ... and "vitamin K1"
    "alendronic acid": "alendronate",     # RxNorm 2025 name of IN 46041 (supplement: alendronate)
}

# RxTerms 2013 (older RxNorm) dose-form names -> their RxNorm 2025 names.
OLD_DOSE_FORMS = {
    "Disintegrating Tablet": "Disintegrating Oral Tablet",
    "Extended Release Tablet": "Extended Release Oral Tablet",
    "Extended Release Capsule": "Extended Release Oral Capsule",
    "Enteric Coated Tablet": "Delayed Release Oral Tablet",
    "Enteric Coated Capsule": "Delayed Release Oral Capsule",
    "Inhalant Solution": "Inhalation Solution",
    "Inhalant Powder": "Inhalation Powder",
    "Granules": "Oral Granules",
    "Wafer": "Oral Wafer",
    "Lozenge": "Oral Lozenge",
}

# Upper-case tokens in title-cased brand names.
UPPER_TOKENS = set("""
hfa xr er sr xl cr cd la odt dr ec xt ir ds pm am hct hc dm ii iii iv vi ht pe
ac ad ar as bp cf cs dh es gg hp lq ms mr nr np pd pf sa sl sd tr tc tm uv xp
rx otc iud hbr apap asa mtx
""".split())
# Camel-case brands that Drugs@FDA only gives in capitals (RxNorm's own spelling).
CASE_OVERRIDES = {
    "proair": "ProAir", "respiclick": "RespiClick", "digihaler": "Digihaler",
    "novolog": "NovoLog", "humalog": "Humalog", "flexpen": "FlexPen",
    "kwikpen": "KwikPen", "solostar": "SoloStar", "oxycontin": "OxyContin",
    "epipen": "EpiPen", "miralax": "MiraLAX", "nuvaring": "NuvaRing",
    "duoneb": "DuoNeb", "ddavp": "DDAVP", "hydrodiuril": "HydroDIURIL",
}

# Hand-curated synonyms: (synonym, ingredient names joined by '|', note).  Every
# ingredient name must be an IN row of concepts.tsv (checked; the script fails loudly).
# Synonyms that are themselves concept names are skipped with a message.  Deliberately
# left out because they collide with common note abbreviations: PEG (PEG tube), CBD
# (common bile duct), NS, LR, MS (morphine vs multiple sclerosis), "levo", "metro".
SYNONYMS = [
    ("HCTZ", "hydrochlorothiazide", "abbreviation"),
    ("APAP", "acetaminophen", "abbreviation (N-acetyl-p-aminophenol)"),
    ("paracetamol", "acetaminophen", "INN / UK name"),
    ("ASA", "aspirin", "abbreviation (acetylsalicylic acid)"),
    ("acetylsalicylic acid", "aspirin", "chemical name"),
    ("baby aspirin", "aspirin", "lay name for 81 mg aspirin"),
    ("low dose aspirin", "aspirin", "lay name for 81 mg aspirin"),
    ("low-dose aspirin", "aspirin", "lay name for 81 mg aspirin"),
    ("EC aspirin", "aspirin", "enteric-coated aspirin"),
    ("MTX", "methotrexate", "abbreviation"),
    ("NTG", "nitroglycerin", "abbreviation"),
    ("SL NTG", "nitroglycerin", "sublingual nitroglycerin"),
    ("nitro", "nitroglycerin", "clinical shorthand"),
    ("GTN", "nitroglycerin", "glyceryl trinitrate (UK)"),
    ("glyceryl trinitrate", "nitroglycerin", "UK name"),
    ("ISMN", "isosorbide", "isosorbide mononitrate (RxNorm PIN of isosorbide)"),
    ("ISDN", "isosorbide dinitrate", "abbreviation"),
    ("KCl", "potassium chloride", "chemical formula"),
    ("NaCl", "sodium chloride", "chemical formula"),
    ("normal saline", "sodium chloride", "0.9% sodium chloride"),
    ("NaHCO3", "sodium bicarbonate", "chemical formula"),
    ("bicarb", "sodium bicarbonate", "clinical shorthand"),
    ("baking soda", "sodium bicarbonate", "lay name"),
    ("CaCO3", "calcium carbonate", "chemical formula"),
    ("MgSO4", "magnesium sulfate", "chemical formula"),
    ("Epsom salt", "magnesium sulfate", "lay name"),
    ("Epsom salts", "magnesium sulfate", "lay name"),
    ("mag oxide", "magnesium oxide", "clinical shorthand"),
    ("MgO", "magnesium oxide", "chemical formula"),
    ("milk of magnesia", "magnesium hydroxide", "lay name"),
    ("FeSO4", "ferrous sulfate", "chemical formula"),
    ("SSKI", "potassium iodide", "saturated solution of potassium iodide"),
    ("vitamin D", "cholecalciferol", "lay name; OTC vitamin D is usually D3"),
    ("vit D", "cholecalciferol", "shorthand"),
    ("vitamin D3", "cholecalciferol", "vitamin D3"),
    ("vit D3", "cholecalciferol", "shorthand"),
    ("vitamin D2", "ergocalciferol", "vitamin D2"),
    ("vit B12", "vitamin B12", "shorthand"),
    ("B12", "vitamin B12", "shorthand"),
    ("vitamin B-12", "vitamin B12", "spelling variant"),
    ("cyanocobalamin", "vitamin B12", "RxNorm 2025 IN is named 'vitamin B12'"),
    ("vitamin B1", "thiamine", "lay name"),
    ("vitamin B2", "riboflavin", "lay name"),
    ("vitamin B3", "niacin", "lay name"),
    ("vit B6", "vitamin B6", "shorthand"),
    ("vitamin B-6", "vitamin B6", "spelling variant"),
    ("methylcobalamin", "mecobalamin", "common name of mecobalamin"),
    ("vitamin C", "ascorbic acid", "lay name"),
    ("vit C", "ascorbic acid", "shorthand"),
    ("phytonadione", "vitamin K1", "RxNorm 2025 IN is named 'vitamin K1'"),
    ("folate", "folic acid", "lay name"),
    ("fish oil", "fish oil (containing omega-3 acids)", "lay name (OTC fish oil IN)"),
    ("omega-3", "fish oil (containing omega-3 acids)", "lay name"),
    ("omega 3", "fish oil (containing omega-3 acids)", "lay name"),
    ("omega-3 fatty acids", "fish oil (containing omega-3 acids)", "lay name"),
    ("CoQ10", "ubidecarenone", "coenzyme Q10"),
    ("coenzyme Q10", "ubidecarenone", "lay name"),
    ("senna", "sennosides, USP", "lay name"),
    ("PEG 3350", "polyethylene glycol 3350", "abbreviation"),
    ("MMF", "mycophenolate mofetil", "abbreviation"),
    ("alendronic acid", "alendronate", "current RxNorm name of IN 46041"),
    ("pen VK", "penicillin V", "penicillin V potassium"),
    ("penicillin VK", "penicillin V", "penicillin V potassium"),
    ("Pen G", "penicillin G", "abbreviation"),
    ("amox", "amoxicillin", "clinical shorthand"),
    ("amox-clav", "amoxicillin|clavulanate", "amoxicillin/clavulanate"),
    ("amoxicillin-clavulanate", "amoxicillin|clavulanate", "combination"),
    ("TMP-SMX", "sulfamethoxazole|trimethoprim", "abbreviation"),
    ("TMP/SMX", "sulfamethoxazole|trimethoprim", "abbreviation"),
    ("SMX-TMP", "sulfamethoxazole|trimethoprim", "abbreviation"),
    ("SMX/TMP", "sulfamethoxazole|trimethoprim", "abbreviation"),
    ("co-trimoxazole", "sulfamethoxazole|trimethoprim", "INN combination name"),
    ("pip-tazo", "piperacillin|tazobactam", "abbreviation"),
    ("pip/tazo", "piperacillin|tazobactam", "abbreviation"),
    ("azithro", "azithromycin", "clinical shorthand"),
    ("Z-Pak", "azithromycin", "azithromycin 5-day pack"),
    ("Z-pack", "azithromycin", "azithromycin 5-day pack (spelling variant)"),
    ("Zpak", "azithromycin", "azithromycin 5-day pack (spelling variant)"),
    ("clinda", "clindamycin", "clinical shorthand"),
    ("vanc", "vancomycin", "clinical shorthand"),
    ("vanco", "vancomycin", "clinical shorthand"),
    ("INH", "isoniazid", "abbreviation"),
    ("HCQ", "hydroxychloroquine", "abbreviation"),
    ("5-FU", "fluorouracil", "abbreviation"),
    ("6-MP", "mercaptopurine", "abbreviation"),
    ("AZA", "azathioprine", "abbreviation"),
    ("CsA", "cyclosporine", "abbreviation"),
    ("tacro", "tacrolimus", "clinical shorthand"),
    ("FK506", "tacrolimus", "research code"),
    ("ATRA", "tretinoin", "all-trans retinoic acid"),
    ("tPA", "alteplase", "tissue plasminogen activator"),
    ("EPO", "epoetin alfa", "abbreviation"),
    ("G-CSF", "filgrastim", "abbreviation"),
    ("TXA", "tranexamic acid", "abbreviation"),
    ("NAC", "acetylcysteine", "N-acetylcysteine"),
    ("N-acetylcysteine", "acetylcysteine", "chemical name"),
    ("PTU", "propylthiouracil", "abbreviation"),
    ("MMI", "methimazole", "abbreviation"),
    ("DHE", "dihydroergotamine", "abbreviation"),
    ("LT4", "levothyroxine", "abbreviation (L-thyroxine)"),
    ("L-thyroxine", "levothyroxine", "chemical name"),
    ("UFH", "heparin", "unfractionated heparin"),
    ("enox", "enoxaparin", "clinical shorthand"),
    ("NPH", "insulin isophane", "NPH insulin"),
    ("NPH insulin", "insulin isophane", "NPH insulin"),
    ("regular insulin", "insulin, regular, human", "lay name"),
    ("MSO4", "morphine", "morphine sulfate"),
    ("metop", "metoprolol", "clinical shorthand"),
    ("Tylenol #3", "acetaminophen|codeine", "acetaminophen 300 mg / codeine 30 mg"),
    ("Tylenol 3", "acetaminophen|codeine", "acetaminophen 300 mg / codeine 30 mg"),
    ("Tylenol #4", "acetaminophen|codeine", "acetaminophen 300 mg / codeine 60 mg"),
    ("APAP/codeine", "acetaminophen|codeine", "abbreviation"),
    ("hydrocodone/APAP", "acetaminophen|hydrocodone", "abbreviation"),
    ("oxycodone/APAP", "acetaminophen|oxycodone", "abbreviation"),
    ("bupe", "buprenorphine", "clinical shorthand"),
    ("bupe/naloxone", "buprenorphine|naloxone", "abbreviation"),
    ("nicotine patch", "nicotine", "lay name"),
    ("nicotine gum", "nicotine", "lay name"),
    ("BPO", "benzoyl peroxide", "abbreviation"),
    ("lithium salts", "lithium carbonate", "lay name"),
    ("Depo shot", "medroxyprogesterone", "lay name for Depo-Provera injection"),
    ("Pepto", "bismuth subsalicylate", "lay short form of Pepto-Bismol"),
]

# --------------------------------------------------------------------------- parsing

NUM = r"\d[\d,]*(?:\.\d+)?"
# a strength: number + unit token starting with an upper-case letter, '%' or '['
RE_COMPONENT = re.compile(r"^(?P<name>.+?) (?P<num>" + NUM + r") (?P<unit>[A-Z%\[][^\s]*)(?: (?P<rest>.*))?$")


def parse_clinical_drug(name, resolver):
    """Split an RxNorm-style SCD/SBD/RxTerms generic name into components.

    "24 HR bupropion hydrochloride 150 MG Extended Release Oral Tablet"
      -> ([("bupropion hydrochloride", "150 MG")], "Extended Release Oral Tablet", {IN})
    RxNorm puts qualifiers before the quantity ("Evening Dosing 24 HR ...",
    "Abuse-Deterrent ...", "0.25 MG, 0.5 MG Dose 1.5 ML ...", "NDA201739 0.1 ML ...");
    they are capitalised (ingredients are lower case), so leading capitalised / numeric
    tokens are dropped one at a time until every component resolves to an IN.
    Returns (components, dose_form, frozenset of IN rxcuis) or None.
    """
    s = re.sub(r"\s*\[[^\]]*\]\s*$", "", name.strip())   # drop "[Brand]"
    for _ in range(9):
        got = _parse_components(s)
        if got is not None:
            acc = set()
            for n, _ in got[0]:
                r = resolver(n)
                if not r:
                    acc = None
                    break
                acc |= r
            if acc:
                return got[0], got[1], frozenset(acc)
        m = re.match(r"^[A-Z0-9][^ ]* (?=\S)", s)
        if not m:
            return None
        s = s[m.end():]
    return None


def _parse_components(s):
    parts = s.split(" / ")
    comps = []
    form = ""
    for i, p in enumerate(parts):
        m = RE_COMPONENT.match(p)
        if not m:
            return None
        rest = m.group("rest") or ""
        if i < len(parts) - 1 and rest:
            return None
        if i == len(parts) - 1:
            form = rest
        comps.append((m.group("name"), m.group("num") + " " + m.group("unit")))
    return comps, form


def strength_key(s):
    num, _, unit = s.partition(" ")
    return (float(num.replace(",", "")), unit)


# --------------------------------------------------------------------------- main build

def main():
    if not os.path.isdir(DATA):
        die("data directory not found: " + DATA)
    if not os.path.isfile(DICT_FILE):
        die(DICT_FILE + " not found: apt-get install -y wamerican")
    os.makedirs(OUT, exist_ok=True)
    stats = collections.Counter()

    # ---- RxNorm 2025 concepts and relations
    concepts = {}
    for r in read_tsv(F_CONCEPTS):
        concepts[r["RXCUI"]] = (r["TTY"], r["STR"])
    rel = collections.defaultdict(list)
    inv = collections.defaultdict(list)
    for r in read_tsv(F_RELATIONS):
        rel[r["RXCUI1"]].append((r["RELA"], r["RXCUI2"]))
        inv[r["RXCUI2"]].append((r["RELA"], r["RXCUI1"]))

    def tty(x):
        return concepts.get(x, ("", ""))[0]

    # ---- ingredient table: IN rxcui -> (name, source)
    ins = {}
    for x, (t, s) in concepts.items():
        if t == "IN":
            ins[x] = (s, SRC_RX)
    sup_rows = [(r["RXCUI"], r["TTY"], r["STR"]) for r in read_tsv(F_SUPP)]
    sup_rows += [(r["RXCUI"], r["TTY"], r["STR"]) for r in read_tsv(F_EXTRA)]
    sup_pins = []
    for x, t, s in sup_rows:
        if x in concepts or x in ins:
            die("supplement rxcui %s already known" % x)
        if t == "IN":
            ins[x] = (s, SRC_SUP)
        elif t == "PIN":
            sup_pins.append((x, s))
        else:
            die("unexpected supplement tty %s" % t)

    # ---- name index: normalised name -> frozenset(IN rxcuis)
    name_index = {}

    def add_name(key, val):
        if key in name_index and name_index[key] != val:
            return False
        name_index[key] = val
        return True

    for x, (s, _) in ins.items():
        if norm(s) in name_index:
            die("duplicate IN name %r" % s)
        name_index[norm(s)] = frozenset([x])

    # PIN -> IN from SCDC has_precise_ingredient PIN + SCDC has_ingredient IN
    pin_in = collections.defaultdict(set)
    for x, (t, s) in concepts.items():
        if t != "SCDC":
            continue
        scdc_ins = [y for r, y in rel[x] if r == "has_ingredient" and y in ins]
        for r, p in rel[x]:
            if r == "has_precise_ingredient":
                pin_in[p].update(scdc_ins)

    def resolve(name):
        """Ingredient string -> frozenset of IN rxcuis, or None."""
        key = norm(name)
        key = re.sub(r"\s*\((?:usp|as [^)]*|eq[^)]*)\)\s*", " ", key).strip()
        key = " ".join(key.split())
        key = re.sub(r"\bvitamin ([a-z]) (\d+)\b", r"vitamin \1\2", key)
        key = OLD_NAMES.get(key, key)
        if key in name_index:
            return name_index[key]
        toks = key.replace(",", " ").split()
        # strip salt words from the end, then the start (breadth-first, deterministic)
        seen = set()
        frontier = [tuple(toks)]
        for _ in range(4):
            nxt = []
            for t in frontier:
                for cand in ((t[:-1], t[-1]), (t[1:], t[0])):
                    rest, w = cand
                    if not rest or w not in SALT_WORDS or rest in seen:
                        continue
                    seen.add(rest)
                    k = " ".join(rest)
                    if k in name_index:
                        return name_index[k]
                    nxt.append(rest)
            frontier = nxt
        return None

    pin_rows = []   # (rxcui, name, ins, source)
    for x, (t, s) in concepts.items():
        if t != "PIN":
            continue
        got = frozenset(pin_in.get(x, ()))
        if len(got) != 1:
            got = resolve(s) if not got else None
            if got is not None and len(got) != 1:
                got = None
        pin_rows.append((x, s, got, SRC_RX))
    for x, s in sup_pins:
        got = resolve(s)
        pin_rows.append((x, s, got if got and len(got) == 1 else None, SRC_SUP))
    for x, s, got, _ in pin_rows:
        if got:
            add_name(norm(s), got)
    # aliases without "(USP)" / ", USP" / ", human" suffixes
    for key, val in sorted(name_index.items()):
        for pat in (r"\s*\(usp\)$", r",\s*usp$", r",\s*human$"):
            k2 = re.sub(pat, "", key)
            if k2 != key and k2 not in name_index:
                name_index[k2] = val

    # MIN -> INs by splitting the name on " / "
    min_rows = []
    for x, (t, s) in concepts.items():
        if t != "MIN":
            continue
        acc = set()
        ok = True
        for part in s.split(" / "):
            got = resolve(part)
            if not got:
                ok = False
                break
            acc |= got
        min_rows.append((x, s, frozenset(acc) if ok else None, SRC_RX))

    # ---- clinical drug (SCD / SBD) resolution
    unresolved_names = collections.Counter()

    def parse_cd(name):
        p = parse_clinical_drug(name, resolve)
        if p is None:
            unresolved_names[name] += 1
        return p

    # ---- RxNorm 2025 BNs
    bn_rows = {}   # rxcui -> [name, set(ins) or None]
    for x, (t, s) in concepts.items():
        if t != "BN":
            continue
        acc = set()
        ok = True
        sbds = [y for r, y in inv[x] if r == "has_ingredient" and tty(y) == "SBD"]
        if not sbds:
            ok = False
        for sbd in sbds:
            via_rel = set()
            for r, scd in rel[sbd]:
                if r != "tradename_of":
                    continue
                for r2, scdc in rel[scd]:
                    if r2 == "consists_of":
                        via_rel.update(y for r3, y in rel[scdc] if r3 == "has_ingredient" and y in ins)
            p = parse_cd(concepts[sbd][1])
            via_name = p[2] if p else None
            if via_name is None:
                ok = False
                stats["bn_sbd_unparsed"] += 1
                acc |= via_rel
                continue
            if via_rel - via_name:
                stats["bn_sbd_rel_extra"] += 1
            acc |= via_name | via_rel
        bn_rows[x] = [s, frozenset(acc) if ok else None, frozenset(acc)]

    # ---- RxTerms 2013 and Drugs@FDA brand candidates
    rxterms = []
    with open(data_path(F_RXTERMS), encoding="utf-8", newline="") as f:
        lines = f.read().replace("\r\n", "\n").split("\n")
    hdr = lines[0].split("|")
    for ln in lines[1:]:
        if not ln:
            continue
        f_ = ln.split("|")
        if len(f_) != len(hdr):
            stats["rxterms_bad_rows"] += 1      # the copy's last line is truncated
            continue
        rxterms.append(dict(zip(hdr, f_)))

    case_map = {}          # lower brand -> RxNorm spelling
    for x, (t, s) in concepts.items():
        if t == "BN":
            case_map.setdefault(norm(s), s)

    cand = collections.OrderedDict()   # key -> {"name","ins":set,"bad":bool,"src"}

    def add_candidate(brand, ing_names, src, resolved=None):
        """resolved: IN set already resolved from a parsed clinical-drug name, or None
        to resolve each of ing_names; an unresolvable ingredient spoils the brand."""
        key = norm(brand)
        if not key:
            return
        c = cand.setdefault((src, key), {"name": brand, "ins": set(), "bad": False,
                                         "ingnames": set()})
        for n in ing_names:
            c["ingnames"].add(norm(n))
        if resolved is not None:
            c["ins"] |= resolved
            return
        if not ing_names:
            c["bad"] = True
        for n in ing_names:
            got = resolve(n)
            if not got:
                c["bad"] = True
            else:
                c["ins"] |= got

    re_bracket = re.compile(r"\[([^\]]+)\]\s*$")
    for r in read_tsv(F_ABRANDS):
        m = re_bracket.search(r["FULL_NAME"])
        if not m:
            continue
        case_map.setdefault(norm(m.group(1)), m.group(1))
        p = parse_cd(r["FULL_NAME"])
        if not p:
            add_candidate(m.group(1), [], SRC_RXT)
            continue
        add_candidate(m.group(1), [n for n, _ in p[0]], SRC_RXT, p[2])
    for r in rxterms:
        if r["TTY"] != "SBD":
            continue
        m = re_bracket.search(r["FULL_NAME"])
        if not m:
            continue
        case_map.setdefault(norm(m.group(1)), m.group(1))
        p = parse_cd(r["FULL_GENERIC_NAME"])
        if not p:
            add_candidate(m.group(1), [], SRC_RXT)
            continue
        add_candidate(m.group(1), [n for n, _ in p[0]], SRC_RXT, p[2])

    # token-level casing from RxNorm / RxTerms brand names (for Drugs@FDA capitals)
    tok_case = collections.defaultdict(collections.Counter)
    for low, cased in case_map.items():
        for tok in re.split(r"([\s\-/])", cased):
            if tok.strip(" -/") and not tok.isupper() and not tok.islower():
                tok_case[tok.lower()][tok] += 1

    def title_brand(caps):
        key = norm(caps)
        if key in case_map:
            return case_map[key]
        out = []
        for tok in re.split(r"([\s\-/])", caps):
            lo = tok.lower()
            if not tok or tok in " -/":
                out.append(tok)
            elif lo in CASE_OVERRIDES:
                out.append(CASE_OVERRIDES[lo])
            elif lo in ("w", "and", "with", "in", "of", "for") and out:
                out.append(lo)
            elif re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]?", tok):
                out.append(tok.upper())
            elif lo in tok_case:
                out.append(sorted(tok_case[lo].items(), key=lambda kv: (-kv[1], kv[0]))[0][0])
            elif lo in UPPER_TOKENS or (len(lo) <= 3 and not re.search(r"[aeiouy]", lo)):
                out.append(tok.upper())
            elif lo in ("w", "and", "with", "in", "of", "for") and out:
                out.append(lo)
            else:
                out.append(tok[:1].upper() + tok[1:].lower())
        return "".join(out)

    re_fda_tail = re.compile(
        r"\s+(?:(?:IN|W/|WITH)\s+(?:[\d.]+%\s+)?(?:PLASTIC|DEXTROSE|SODIUM CHLORIDE|STERILE WATER|"
        r"WATER|LACTATED|DUPLEX|GLASS|ADD-VANTAGE|ADDVANTAGE)\b.*|PRESERVATIVE FREE)$")
    with open(data_path(F_FDA), encoding="utf-8", newline="") as f:
        lines = f.read().replace("\r\n", "\n").split("\n")
    hdr = lines[0].split("\t")
    for ln in lines[1:]:
        if not ln:
            continue
        r = dict(zip(hdr, ln.split("\t")))
        dn = " ".join(r["DrugName"].replace('"', "").split())
        dn = re.sub(r"\s*\([^)]*\)", "", dn)          # "(AUTOINJECTOR)", "(COPACKAGED)"
        dn = re_fda_tail.sub("", dn).strip(" ,")
        while re.search(r"\s[\d][\d./-]*%?$", dn):     # "ADDERALL XR 20" -> "ADDERALL XR"
            dn = re.sub(r"\s[\d][\d./-]*%?$", "", dn)
        if not dn or not re.search(r"[A-Z]", dn):
            continue
        ings = [i.strip() for i in r["ActiveIngredient"].split(";") if i.strip()]
        if not ings:
            continue
        add_candidate(title_brand(dn), ings, SRC_FDA)

    # ---- generic-name filter
    all_generic_keys = set(name_index)
    for x, (t, s) in concepts.items():
        if t in ("IN", "PIN", "MIN"):
            all_generic_keys.add(norm(s))

    syn_keys_all = set(norm(sy[0]) for sy in SYNONYMS)
    # every word of every ingredient name: a "brand" made only of these (plus salt and
    # filler words) is a generic description ("Neomycin and Polymyxin B Sulfates ...")
    ingredient_tokens = set()
    for k in all_generic_keys:
        ingredient_tokens.update(t for t in re.split(r"[^a-z0-9']+", k) if len(t) >= 3)

    def tokens(s):
        return [t for t in re.split(r"[^a-z0-9']+", s.lower()) if t]

    def is_generic(brand, c):
        key = norm(brand)
        if key in all_generic_keys or key in syn_keys_all or resolve(brand):
            return True
        first = tokens(key)[:1]
        if first and (resolve(first[0]) or frozenset()) & c["ins"]:
            return True     # "Promethazine DM", "Lorazepam Intensol": generic + qualifier
        words = set(ingredient_tokens)
        for n in c["ingnames"]:
            words.update(tokens(n))
        for t in tokens(key):
            for v in (t, t[:-2] if t.endswith("'s") else t, t[:-1] if t.endswith("s") else t):
                if v in words or v in SALT_WORDS or v in GENERIC_FILLER:
                    break
            else:
                if re.fullmatch(r"[\d.,%#]+|\d+(?:mg|mcg|ml|%)?", t):
                    continue
                return False
        return True

    # ---- assemble BN rows: RxNorm 2025 first, then extra brands
    rows = []      # (rxcui, tty, name, frozenset ins, source)
    dropped = collections.Counter()
    dropped_examples = collections.defaultdict(list)
    present = {}   # lower name -> index in rows

    for x, s, got, src in [(x, ins[x][0], frozenset([x]), ins[x][1]) for x in ins]:
        rows.append((x, "IN", s, got, src))
    for x, s, got, src in pin_rows:
        if got:
            rows.append((x, "PIN", s, got, src))
        else:
            dropped["PIN"] += 1
            dropped_examples["PIN"].append(s)
    for x, s, got, src in min_rows:
        if got:
            rows.append((x, "MIN", s, got, src))
        else:
            dropped["MIN"] += 1
            dropped_examples["MIN"].append(s)

    # candidate brands merged per lower-case name across sources (RxTerms before FDA)
    merged = collections.OrderedDict()
    for (src, key), c in sorted(cand.items(), key=lambda kv: (kv[0][1], SOURCE_ORDER.index(kv[0][0]))):
        if c["bad"] or not c["ins"]:
            stats["cand_unresolved_" + src] += 1
            continue
        if is_generic(c["name"], c):
            stats["cand_generic_" + src] += 1
            continue
        letters = re.sub(r"[^A-Za-z]", "", c["name"])
        if len(letters) < 3 or (len(letters) <= 4 and not re.search(r"[a-z]", c["name"])):
            stats["cand_acronym_" + src] += 1      # "TPN", "BSS", "TAC": too ambiguous
            continue
        if key not in merged:
            merged[key] = dict(c, src=src)
        else:
            stats["cand_dup_" + src] += 1

    recovered = 0
    for x in sorted(bn_rows, key=int):
        s, got, partial = bn_rows[x]
        if got is None:
            alt = merged.get(norm(s))
            if alt is not None:
                got = frozenset(alt["ins"]) | partial
                recovered += 1
                dropped_examples["recovered"].append(s)
                stats["bn_recovered_from_" + alt["src"]] += 1
        if got:
            rows.append((x, "BN", s, got, SRC_RX))
        else:
            dropped["BN"] += 1
            dropped_examples["BN"].append(s)
    stats["bn_recovered"] = recovered

    have_names = set(norm(r[2]) for r in rows)
    added = []
    for key, c in merged.items():
        if key in have_names:
            continue
        added.append(("", "BN", c["name"], frozenset(c["ins"]), c["src"]))
        have_names.add(key)
    rows.extend(added)

    # base brands: strip formulation / device suffixes ("ProAir HFA" -> "ProAir")
    base = collections.OrderedDict()
    for r in sorted(rows, key=lambda r: (norm(r[2]), SOURCE_ORDER.index(r[4]))):
        if r[1] != "BN":
            continue
        toks = r[2].split()
        while len(toks) > 1 and toks[-1].lower() in FORM_SUFFIXES:
            toks = toks[:-1]
        if len(toks) == len(r[2].split()):
            continue
        bname = " ".join(toks)
        bkey = norm(bname)
        if bkey in have_names or bkey in all_generic_keys or resolve(bname):
            continue
        if len(re.sub(r"[^a-z]", "", bkey)) < 4:
            continue
        # the base must not also start a brand with other ingredients ("Oxy IR" vs "Oxy 10")
        if any(o[1] == "BN" and o[3] != r[3] and norm(o[2]).startswith(bkey + " ")
               for o in rows):
            stats["bn_base_conflict"] += 1
            continue
        if bkey in base:
            b = base[bkey]
            b[3] = b[3] | r[3]
        else:
            base[bkey] = ["", "BN", bname, r[3], r[4]]
    for b in base.values():
        rows.append(tuple(b))
        have_names.add(norm(b[2]))
    stats["bn_base_names"] = len(base)

    # ---- validate and write concepts.tsv
    seen = set()
    for r in rows:
        for fld in (r[0], r[1], r[2], r[4]):
            if re.search(r"[\t\n\r\"]", fld):
                die("bad character in field %r" % fld)
        k = (norm(r[2]), r[1])
        if k in seen:
            die("duplicate lexicon row %r" % (k,))
        seen.add(k)
    rows.sort(key=lambda r: (norm(r[2]), r[2], TTY_ORDER.index(r[1]), r[0], r[4]))

    def ing_str(s):
        return "|".join(sorted(s, key=int))

    write_lines("concepts.tsv", ["rxcui\ttty\tname\tingredient_rxcuis\tsource"] +
                ["\t".join((r[0], r[1], r[2], ing_str(r[3]), r[4])) for r in rows])

    # ---- dictionary
    dict_words = []
    with open(DICT_FILE, encoding="utf-8") as f:
        for ln in f:
            w = ln.strip()
            if w:
                dict_words.append(w)
    data_path_abs(DICT_FILE)
    lower_dict = set(w for w in dict_words if re.fullmatch(r"[a-z]+", w))

    # ---- ambiguous brands
    ambiguous = set()
    for r in rows:
        if r[1] != "BN":
            continue
        toks = [t for t in re.split(r"[\s\-]+", r[2].lower()) if t]
        if toks and all(t in lower_dict for t in toks):
            ambiguous.add(norm(r[2]))
    write_lines("ambiguous_brands.txt", sorted(ambiguous))

    # ---- synonyms
    in_by_name = {}
    for r in rows:
        if r[1] == "IN":
            in_by_name[norm(r[2])] = r[2]
    concept_names = set(norm(r[2]) for r in rows)
    syn_out = []
    syn_keys = set()
    for syn, targets, nt in SYNONYMS:
        for tname in targets.split("|"):
            if norm(tname) not in in_by_name:
                die("synonym %r: target ingredient %r is not an IN row of concepts.tsv" % (syn, tname))
        if norm(syn) in concept_names:
            note("synonym %r skipped: already a concept name" % syn)
            continue
        if norm(syn) in syn_keys:
            die("duplicate synonym %r" % syn)
        syn_keys.add(norm(syn))
        tn = "|".join(sorted((in_by_name[norm(t)] for t in targets.split("|")), key=norm))
        syn_out.append((syn, tn, nt))
    syn_out.sort(key=lambda r: (norm(r[0]), r[0]))
    write_lines("synonyms.tsv", ["synonym\tingredients\tnote"] + ["\t".join(r) for r in syn_out])

    # ---- dose forms
    df = collections.defaultdict(lambda: (set(), set()))
    for x, (t, s) in concepts.items():
        if t != "SCD":
            continue
        p = parse_clinical_drug(s, resolve)
        if not p:
            stats["scd_unresolved"] += 1
            continue
        comps, form, got = p
        if len(comps) != 1 or len(got) != 1 or not form:
            continue
        i = next(iter(got))
        df[i][0].add(form)
        df[i][1].add(comps[0][1])
    sup_ins = set(x for x in ins if ins[x][1] == SRC_SUP)
    for r in rxterms:
        if r["TTY"] not in ("SCD", "SBD"):
            continue
        p = parse_clinical_drug(r["FULL_GENERIC_NAME"], resolve)
        if not p or len(p[0]) != 1 or len(p[2]) != 1:
            continue
        i = next(iter(p[2]))
        if i not in sup_ins:
            continue
        form = r["RXN_DOSE_FORM"].strip() or p[1]
        form = OLD_DOSE_FORMS.get(form, form)
        if form:
            df[i][0].add(form)
        df[i][1].add(p[0][0][1])
    df_lines = ["ingredient_rxcui\tdose_forms\tstrengths"]
    for i in sorted(df, key=int):
        forms, strengths = df[i]
        df_lines.append("%s\t%s\t%s" % (i, "|".join(sorted(forms)),
                                          "|".join(sorted(strengths, key=strength_key))))
    write_lines("dose_forms.tsv", df_lines)

    # ---- english words
    lex_names = set(norm(r[2]) for r in rows) | syn_keys
    lex_tokens = set()
    for n in lex_names:
        lex_tokens.update(re.findall(r"[a-z]+", n))
    words = set()
    for w in dict_words:
        if re.fullmatch(r"[A-Za-z]{4,}", w):
            lw = w.lower()
            if lw not in lex_names:
                words.add(lw)
    counts = collections.Counter()
    for pattern, col in (("conversations/aci-bench/*.csv", "note"),
                         ("conversations/mts-dialog/*.csv", "section_text")):
        files = sorted(glob.glob(os.path.join(DATA, pattern)))
        used = 0
        for fp in files:
            with open(fp, encoding="utf-8", newline="") as f:
                rd = csv.DictReader(f)
                if col not in (rd.fieldnames or []):
                    continue
                data_path(os.path.relpath(fp, DATA))
                used += 1
                for rec in rd:
                    for w in re.findall(r"[A-Za-z]+", rec[col] or ""):
                        counts[w.lower()] += 1
        if not used:
            die("no CSV with column %r in %s" % (col, pattern))
    note_words = 0
    for w, n in counts.items():
        if n >= 3 and len(w) >= 4 and w not in lex_names and w not in words:
            if w in lex_tokens:
                stats["note_words_skipped_lexicon_token"] += 1
                continue
            words.add(w)
            note_words += 1
    stats["english_from_notes"] = note_words
    write_lines("english_words.txt", sorted(words))

    # ---- licence copy
    if os.path.isfile(DICT_COPYRIGHT):
        with open(DICT_COPYRIGHT, encoding="utf-8") as f:
            write_text("LICENSE-SCOWL.txt", f.read())
    else:
        die(DICT_COPYRIGHT + " not found (wamerican not installed?)")

    # ---- VERSION
    tty_c = collections.Counter(r[1] for r in rows)
    src_c = collections.Counter(r[4] for r in rows)
    ts_c = collections.Counter((r[4], r[1]) for r in rows)
    v = ["terminology=rxnorm-2025-10-06+a-supplement",
         "rxnorm_release=" + RXNORM_RELEASE,
         "generator=scripts/derive_terminology.py",
         "concepts_rows=%d" % len(rows)]
    v += ["tty.%s=%d" % (t, tty_c[t]) for t in TTY_ORDER]
    v += ["source.%s=%d" % (s, src_c[s]) for s in SOURCE_ORDER]
    v += ["source_tty.%s.%s=%d" % (s, t, ts_c[(s, t)]) for s in SOURCE_ORDER for t in TTY_ORDER if ts_c[(s, t)]]
    v += ["dropped_no_ingredient.%s=%d" % (t, dropped[t]) for t in TTY_ORDER if t in dropped]
    v += ["bn_links_recovered=%d" % recovered,
          "bn_base_names_derived=%d" % len(base),
          "ambiguous_brands=%d" % len(ambiguous),
          "dose_forms_rows=%d" % (len(df_lines) - 1),
          "synonyms_rows=%d" % len(syn_out),
          "english_words=%d" % len(words),
          "english_words_from_notes=%d" % note_words]
    for rel_p, p in sorted(INPUTS_USED):
        v.append("sha256.%s=%s" % (rel_p, sha256(p)))
    write_lines("VERSION", v)

    write_text("README.md", README)

    # ---- report to stderr
    note("concepts rows %d  by tty %s" % (len(rows), dict(sorted(tty_c.items()))))
    note("by source %s" % dict(sorted(src_c.items())))
    note("dropped (no resolvable ingredient) %s" % dict(dropped))
    for t in sorted(dropped_examples):
        note("  dropped %s e.g. %s" % (t, "; ".join(sorted(dropped_examples[t])[:12])))
    note("stats %s" % dict(sorted(stats.items())))
    if os.environ.get("DERIVE_DEBUG"):
        note("unresolved clinical drugs: %s" % unresolved_names.most_common(60))
        for x in sorted(dropped_examples["BN"]):
            note("dropped BN: " + x)


def data_path_abs(p):
    if p not in [q for _, q in INPUTS_USED]:
        INPUTS_USED.append(("dict:" + p, p))


def write_text(name, text):
    with open(os.path.join(OUT, name), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def write_lines(name, lines):
    write_text(name, "".join(l + "\n" for l in lines))


README = """# corpus/terminology — offline drug terminology

Generated by `scripts/derive_terminology.py`; do not edit by hand.  Regenerate from the
repository root with

    apt-get install -y wamerican        # once: /usr/share/dict/american-english
    python3 scripts/derive_terminology.py ../shared/data

(the data directory argument is optional; default `<repo>/../shared/data`).  The output is
deterministic: a second run gives byte-identical files (`sha256sum corpus/terminology/*`).
`VERSION` records the counts and the SHA-256 of every input file.

## Files

| file | content |
|---|---|
| `concepts.tsv` | lexicon, one row per name: `rxcui tty name ingredient_rxcuis source`. `tty` is IN, PIN, MIN or BN. `ingredient_rxcuis` are the IN rxcuis (`|`-separated, numeric order) the name stands for: IN → itself, PIN → its IN, MIN → its INs, BN → the INs of all its products. `source`: `rxnorm-2025-10-06` (RxNorm Current Prescribable Content 2025-10-06), `rxnorm-a-supplement` (hand-built RxNorm rows for the "A" ingredients missing from that copy), `rxterms-2013` (brand names from RxTerms 2013-07 SBDs), `drugsatfda-2019` (brand names from Drugs@FDA, July 2019). Brand rows from RxTerms/Drugs@FDA, and base brand names derived by dropping a formulation/device suffix ("ProAir HFA" → "ProAir"), have an empty `rxcui`. |
| `ambiguous_brands.txt` | brand names (lower case) made only of ordinary English words ("today", "complete", "bright"); they stay in `concepts.tsv`, but the grader should match them only with a dose or capitalisation. Only words that the word list writes in lower case count, so proper-noun entries such as "Advil" or "Zoloft" are not ambiguous. |
| `dose_forms.tsv` | `ingredient_rxcui dose_forms strengths` for every IN with single-ingredient clinical drugs: RxNorm dose forms and strengths parsed from 2025 SCD names ("sertraline 50 MG Oral Tablet"); for the "A" supplement ingredients from RxTerms 2013 (RXN_DOSE_FORM and the strength in FULL_GENERIC_NAME). |
| `synonyms.tsv` | hand-curated abbreviations and lay names (`HCTZ`, `APAP`, `baby aspirin`, `vitamin D3`, `Tylenol #3` …) → ingredient names (`|` = all of them, i.e. a combination). Every target is an IN row of `concepts.tsv`; the script fails if one is missing. |
| `english_words.txt` | lower-case words (letters only, ≥ 4 letters) of the SCOWL/wamerican list, plus words occurring ≥ 3 times in the ACI-Bench and MTS-Dialog reference notes, minus every lexicon name and synonym. The grader never treats these as misspelled or phantom drugs. |
| `VERSION` | key=value: terminology version, RxNorm release, row counts per tty / source, SHA-256 of each input. |
| `LICENSE-SCOWL.txt` | verbatim copyright / licence file of the wamerican (SCOWL) word list. |

Known limits: the RxNorm 2025 copy lacks every ingredient whose name starts with "A";
only the 112 supplement ingredients (+1 PIN) are covered, so products of other "A"
ingredients (albumin, antihemophilic factor, articaine, amino acids …) are absent and
their brands are dropped.  RxTerms 2013 and Drugs@FDA 2019 are old: dose forms of "A"
ingredients come from 2013 (e.g. no albuterol 0.09 MG/ACTUAT metered-dose inhaler in
the copy), and some added brands are discontinued.  RxNorm keeps some near-equivalents as
separate INs (`lithium` vs `lithium carbonate`, `vitamin B6` vs `pyridoxine`): the grader
compares them as one drug through `corpus/rules/equivalents.tsv`.  "penicillin"/"PCN" have
no RxNorm IN: they name the penicillin class (`corpus/rules/allergen_classes.yaml`, members
resolved from this lexicon by `scripts/derive_allergen_classes.py`: rerun it after this script).

How brand rows are built: RxNorm 2025 BNs get the INs of their SBDs, from the relations
(SBD tradename_of SCD consists_of SCDC has_ingredient IN — the flattened file's
`SCDC has_ingredient MIN` links are ignored, they point at every combination that
shares the component) and from parsing the SBD name, which recovers "A" ingredients
whose SCDCs are missing (Tribenzor → amlodipine + hydrochlorothiazide + olmesartan).
Extra brands come from RxTerms 2013 SBDs (`[Brand]` in FULL_NAME, ingredients parsed from
FULL_GENERIC_NAME, RxNorm spelling) and Drugs@FDA (DrugName, title-cased; ActiveIngredient
split on `;`, salts stripped: "ALBUTEROL SULFATE" → albuterol).  A brand is kept only if
every ingredient resolves to an IN, it is not a generic description (only ingredient,
salt and dosage-form words, or starting with its own ingredient), it has at least 3
letters and is not a ≤ 4-letter acronym, and its name is not already present.

## Attribution and licences

* **RxNorm** (Current Prescribable Content 2025-10-06) and **RxTerms** (2013-07): This
  product uses publicly available data courtesy of the U.S. National Library of Medicine
  (NLM), National Institutes of Health, Department of Health and Human Services; NLM is not
  responsible for the product and does not endorse or recommend this or any other product.
* **openFDA / Drugs@FDA** (Products.txt, July 2019, via FDA/openfda): CC0 1.0, public domain.
* **ACI-Bench** (only word frequencies are used): CC-BY-4.0. Wen-wai Yim, Yujuan Fu, Asma
  Ben Abacha, Neal Snider, Thomas Lin, Meliha Yetisgen. "ACI-BENCH: a Novel Ambient
  Clinical Intelligence Dataset for Benchmarking Automatic Visit Note Generation." Nature
  Scientific Data, 2023. https://doi.org/10.1038/s41597-023-02487-3
* **MTS-Dialog** (only word frequencies are used): CC-BY-4.0. Asma Ben Abacha, Wen-wai Yim,
  Yadan Fan, Thomas Lin. "An Empirical Study of Clinical Note Generation from
  Doctor-Patient Encounters." EACL 2023. https://aclanthology.org/2023.eacl-main.168
* **SCOWL / wamerican** word list (Debian package wamerican): "Copyright 2000-2011 by Kevin
  Atkinson. Permission to use, copy, modify, distribute and sell these word lists, the
  associated scripts, the output created from the scripts, and its documentation for any
  purpose is hereby granted without fee, provided that the above copyright notice appears
  in all copies and that both that copyright notice and this permission notice appear in
  supporting documentation. Kevin Atkinson makes no representations about the suitability
  of this array for any purpose. It is provided "as is" without express or implied
  warranty."  The notices of the lists SCOWL incorporates are in `LICENSE-SCOWL.txt`.
"""


if __name__ == "__main__":
    main()
