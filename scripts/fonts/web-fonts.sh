#!/usr/bin/env bash
# The sandbox pages' web fonts: assets/fonts/sandbox-sans.woff2 and
# assets/fonts/sandbox-sans-bold.woff2, subsets of DejaVu Sans and DejaVu Sans Bold as
# WOFF2, made from the TTFs of the dejavu-fonts-ttf dev dependency (node_modules, after
# `npm ci`): the fonts the signed copy embeds (src/sandbox/signing/font-files.ts), so a signer's page
# shows the document in the letters of the PDF, at a fraction of the TTFs' size. The files are
# committed; run this again only when the dependency or the subset changes. Also copies
# DejaVu's licence beside them (assets/fonts/LICENSE): the Bitstream Vera licence allows
# modified versions whose names contain neither "Bitstream" nor "Vera" (the subsets keep
# DejaVu's names).
#
# Characters kept (with every glyph they reach through the features below, so Arabic shapes):
#   U+0000-007F Basic Latin, U+0080-00FF Latin-1 Supplement, U+0100-017F Latin Extended-A,
#   U+2000-206F General Punctuation, U+0600-06FF Arabic (Arabic-Indic digits included),
#   U+FB50-FDFF Arabic Presentation Forms-A, U+FE70-FEFF Arabic Presentation Forms-B,
#   U+FFFD (what the pages show for a character XML cannot carry).
# OpenType features kept: init, medi, fina, isol, liga, rlig (Arabic joining and the lam-alef
# ligature), ccmp, locl (on by default in browsers, as in fontkit, which lays out the PDF), kern,
# mark, mkmk (kerning and the placing of Arabic marks). The hinting stays (small text on Windows);
# the tables no browser reads for this text (MATH, FFTM, the legacy kern) are dropped.
#
# Needs fonttools' pyftsubset with Brotli (Debian: apt-get install fonttools python3-brotli).
# Deterministic: the same fonttools and fonts give the same bytes.
set -euo pipefail
cd "$(dirname "$0")/../.."

command -v pyftsubset >/dev/null || {
  echo "web-fonts: pyftsubset not found (apt-get install fonttools python3-brotli, or pip install fonttools brotli)" >&2
  exit 1
}
src=node_modules/dejavu-fonts-ttf
[ -f "$src/ttf/DejaVuSans.ttf" ] || { echo "web-fonts: $src not found: run npm ci first" >&2; exit 1; }

unicodes="U+0000-007F,U+0080-00FF,U+0100-017F,U+2000-206F,U+0600-06FF,U+FB50-FDFF,U+FE70-FEFF,U+FFFD"
features="init,medi,fina,isol,liga,rlig,ccmp,locl,kern,mark,mkmk"

mkdir -p assets/fonts
subset() {
  pyftsubset "$src/ttf/$1" \
    --unicodes="$unicodes" \
    --layout-features="$features" \
    --drop-tables+=MATH,FFTM,kern \
    --flavor=woff2 \
    --output-file="assets/fonts/$2"
  echo "assets/fonts/$2: $(wc -c < "assets/fonts/$2") bytes"
}
subset DejaVuSans.ttf sandbox-sans.woff2
subset DejaVuSans-Bold.ttf sandbox-sans-bold.woff2
cp "$src/LICENSE" assets/fonts/LICENSE
