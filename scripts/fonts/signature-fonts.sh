#!/usr/bin/env bash
# The handwriting fonts of a typed signature: assets/fonts/signature-latin.woff,
# signature-latin-ext.woff (Dancing Script, Latin and Latin Extended) and signature-arabic.woff
# (Aref Ruqaa, Arabic: Ruqʿah is the hand Arabic is written in every day), as Fontsource publishes
# them on npm, unmodified, with their licences (assets/fonts/OFL-*.txt). Both are under the SIL
# Open Font License 1.1, which lets them be bundled and sold with software as long as the licence
# goes with them; Dancing Script's name is a Reserved Font Name, so its files are shipped as they
# come (no further subsetting, which would make a Modified Version that must be renamed), and the
# pages only alias it in CSS ('Sandbox Signature'), which does not change the font.
#
# WOFF rather than WOFF2: the signed copy embeds them through fontkit, which subsets a WOFF's
# glyphs but not a WOFF2's (its composite glyphs fail); browsers take either.
#
# Fetches the pinned packages with `npm pack` (the npm registry, integrity checked by npm) into a
# temporary directory. The files are committed; run this again only to change a version.
set -euo pipefail
cd "$(dirname "$0")/../.."

dancing=@fontsource/dancing-script@5.3.0
ruqaa=@fontsource/aref-ruqaa@5.3.0

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "$dancing" "$ruqaa" >/dev/null)
for tarball in "$work"/*.tgz; do
  mkdir -p "${tarball%.tgz}"
  tar xzf "$tarball" -C "${tarball%.tgz}"
done
from="$work/fontsource-dancing-script-5.3.0/package"
cp "$from/files/dancing-script-latin-400-normal.woff" assets/fonts/signature-latin.woff
cp "$from/files/dancing-script-latin-ext-400-normal.woff" assets/fonts/signature-latin-ext.woff
cp "$from/LICENSE" assets/fonts/OFL-DancingScript.txt
from="$work/fontsource-aref-ruqaa-5.3.0/package"
cp "$from/files/aref-ruqaa-arabic-400-normal.woff" assets/fonts/signature-arabic.woff
cp "$from/LICENSE" assets/fonts/OFL-ArefRuqaa.txt
for f in signature-latin.woff signature-latin-ext.woff signature-arabic.woff; do
  echo "assets/fonts/$f: $(wc -c < "assets/fonts/$f") bytes"
done
