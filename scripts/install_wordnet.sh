#!/usr/bin/env bash
# Build an NLTK WordNet 3.0 tree (for METEOR) from Debian's packages, without any hub.
#
# Usage: scripts/install_wordnet.sh [NLTK_DATA_DIR]   (default: data/nltk_data in the repo)
#
# As root the Debian packages wordnet-base and wordnet-sense-index are installed with
# apt-get (apt-get update is run only if the first install fails). Otherwise the .debs
# are fetched with `apt-get download` and unpacked with `dpkg-deb -x` into a temp dir.
# The files are then copied to NLTK_DATA_DIR/corpora/wordnet/, with the `lexnames` file
# Debian does not ship generated here. Quick no-op when the tree is already complete.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-$repo/data/nltk_data}"
wn="$dest/corpora/wordnet"
packages=(wordnet-base wordnet-sense-index)
files=(data.adj data.adv data.noun data.verb index.adj index.adv index.noun index.verb
       adj.exc adv.exc noun.exc verb.exc index.sense)

complete() {
    local dir="$1" f
    for f in "${files[@]}"; do [[ -s "$dir/$f" ]] || return 1; done
    return 0
}

if complete "$wn" && [[ -s "$wn/lexnames" ]]; then
    echo "WordNet already in $wn"
    exit 0
fi

src=/usr/share/wordnet
tmp=""
cleanup() { [[ -n "$tmp" ]] && rm -rf "$tmp"; return 0; }
trap cleanup EXIT

if ! complete "$src"; then
    if [[ "$(id -u)" == 0 ]]; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -q --no-install-recommends "${packages[@]}" >/dev/null \
            || { apt-get update -q >/dev/null && \
                 apt-get install -y -q --no-install-recommends "${packages[@]}" >/dev/null; }
    else
        tmp="$(mktemp -d)"
        (cd "$tmp" && apt-get download "${packages[@]}" >/dev/null)
        for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
        src="$tmp/root/usr/share/wordnet"
    fi
fi
complete "$src" || { echo "WordNet files not found in $src after install" >&2; exit 1; }

mkdir -p "$wn"
for f in "${files[@]}"; do cp "$src/$f" "$wn/$f"; done

# NLTK's reader opens `lexnames`: the 45 WordNet 3.0 lexicographer files, number/name/pos.
names=(adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute
       noun.body noun.cognition noun.communication noun.event noun.feeling noun.food
       noun.group noun.location noun.motive noun.object noun.person noun.phenomenon
       noun.plant noun.possession noun.process noun.quantity noun.relation noun.shape
       noun.state noun.substance noun.time verb.body verb.change verb.cognition
       verb.communication verb.competition verb.consumption verb.contact verb.creation
       verb.emotion verb.motion verb.perception verb.possession verb.social verb.stative
       verb.weather adj.ppl)
: > "$wn/lexnames.tmp"
for i in "${!names[@]}"; do
    name="${names[$i]}"
    case "$name" in
        noun.*) pos=1 ;; verb.*) pos=2 ;; adv.*) pos=4 ;; *) pos=3 ;;
    esac
    printf '%02d\t%s\t%d\n' "$i" "$name" "$pos" >> "$wn/lexnames.tmp"
done
mv "$wn/lexnames.tmp" "$wn/lexnames"
echo "WordNet installed in $wn"
