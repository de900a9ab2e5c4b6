#!/usr/bin/env bash
# Install the card artwork the renderer draws from (never committed to the repository):
#   kdegames-card-data-kf5  -> /usr/share/carddecks/svg-*/*.svgz
#   gnome-cards-data        -> /usr/share/aisleriot/cards/*.svgz
#   librsvg2-bin            -> rsvg-convert
# Safe to run again: packages already installed are left as they are.
set -euo pipefail

PACKAGES=(kdegames-card-data-kf5 gnome-cards-data librsvg2-bin)

missing=()
for pkg in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done

if ((${#missing[@]} == 0)); then
    echo "setup_assets: all of ${PACKAGES[*]} already installed"
else
    SUDO=""
    if [[ $(id -u) -ne 0 ]]; then
        SUDO="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    if ! $SUDO apt-get install -y --no-install-recommends "${missing[@]}"; then
        $SUDO apt-get update
        $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
    fi
fi

kde=$(ls /usr/share/carddecks/svg-*/*.svgz 2>/dev/null | wc -l)
gnome=$(ls /usr/share/aisleriot/cards/*.svgz 2>/dev/null | wc -l)
echo "setup_assets: ${kde} KDE decks, ${gnome} aisleriot decks, $(command -v rsvg-convert)"
