#!/usr/bin/env bash
# Install Debian trixie's nginx (HTTP/3-capable) into a private directory on bookworm,
# without touching the system's apt sources or dpkg database.
# usage: install-nginx.sh DEST   -> DEST/usr/sbin/nginx
set -euo pipefail
DEST=${1:?usage: install-nginx.sh DEST}
NGINX_BIN="$DEST/usr/sbin/nginx"
if [ -x "$NGINX_BIN" ] && "$NGINX_BIN" -V 2>&1 | grep -q -- '--with-http_v3_module'; then
  echo "nginx already at $NGINX_BIN"; exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/sources.d" "$work/debs"
# Reuse the archive URI this machine's apt already uses for Debian (no host name written here).
uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$uri" ] || uri=$(awk '$1=="deb" && $0 !~ /security/ {print $2; exit}' /etc/apt/sources.list)
cat > "$work/sources.d/trixie.sources" <<EOF
Types: deb
URIs: $uri
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
# do not run the system's apt update hooks (appstream/packagekit caches) for this private index
echo '#clear APT::Update::Post-Invoke-Success;' > "$work/apt.conf"
APT_OPTS=(-c "$work/apt.conf" -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$work/sources.d"
          -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache"
          -o APT::Sandbox::User=root -qq)
apt-get "${APT_OPTS[@]}" update
( cd "$work/debs" && apt-get "${APT_OPTS[@]}" download nginx )
mkdir -p "$DEST"
dpkg-deb -x "$work"/debs/nginx_*.deb "$DEST"
"$NGINX_BIN" -V 2>&1 | grep -q -- '--with-http_v3_module'
"$NGINX_BIN" -v
