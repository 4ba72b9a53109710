#!/bin/sh
# package.sh APP_ID BOT_HOST [COMPANY] writes ragbot-teams.zip: manifest.json
# with the placeholders filled in, and the two icons, at the top of the zip
# as Teams wants them.
set -eu
if [ $# -lt 2 ]; then
	echo "usage: $0 APP_ID BOT_HOST [COMPANY]   e.g. $0 8e6f0a52-1c9d-4b8a-9d55-3f1c2d4e5a6b ragbot.example.com Acme" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
sed -e "s|{{APP_ID}}|$1|g" -e "s|{{BOT_HOST}}|$2|g" -e "s|{{COMPANY}}|${3:-ragbot}|g" "$here/manifest.json" >"$out/manifest.json"
cp "$here/color.png" "$here/outline.png" "$out/"
rm -f ragbot-teams.zip
(cd "$out" && zip -q -X "$OLDPWD/ragbot-teams.zip" manifest.json color.png outline.png)
echo "wrote ragbot-teams.zip: upload it in Teams (Apps > Manage your apps > Upload an app) or the Teams admin center"
