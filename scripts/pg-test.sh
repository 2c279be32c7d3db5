#!/usr/bin/env bash
# pg-test.sh — a throwaway PostgreSQL 15 + pgvector cluster for mnemo's
# tests and benchmarks (store/postgres, mnemo bench --db-url).
#
#   scripts/pg-test.sh install        install what is missing (apt-get), build pgvector
#   scripts/pg-test.sh start [DIR]    install, then start a cluster in DIR (default: a
#                                     new temp dir) on a free loopback port; prints
#                                     the URL on stdout (everything else goes to stderr)
#   scripts/pg-test.sh stop DIR       stop that cluster and remove DIR
#
# Typical use:
#   dir=$(mktemp -d) && url=$(scripts/pg-test.sh start "$dir")
#   MNEMO_TEST_POSTGRES=$url go test ./store/postgres/
#   scripts/pg-test.sh stop "$dir"
#
# PostgreSQL 15 comes from Debian bookworm. bookworm ships no pgvector, so
# it is built from Debian trixie's source package (a deb-src line is added
# for that; no binary package from trixie is installed) against
# postgresql-server-dev-15: a few seconds. The cluster trusts loopback
# connections (it is a test cluster: never expose it), listens on 127.0.0.1
# only and runs as the postgres user when started by root (PostgreSQL
# refuses to run as root).
set -euo pipefail

PGVER=15
PGBIN=/usr/lib/postgresql/$PGVER/bin

log() { echo "pg-test: $*" >&2; }

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

apt_updated=
apt_update() {
	if [ -z "$apt_updated" ]; then
		as_root apt-get update -qq >&2
		apt_updated=1
	fi
}

install() {
	local pkgs=()
	[ -x "$PGBIN/postgres" ] || pkgs+=("postgresql-$PGVER" "postgresql-contrib")
	[ -x "$PGBIN/pg_config" ] || [ -x /usr/bin/pg_config ] && [ -d "/usr/include/postgresql/$PGVER/server" ] || pkgs+=("postgresql-server-dev-$PGVER")
	command -v make >/dev/null && command -v gcc >/dev/null || pkgs+=(build-essential)
	command -v dpkg-source >/dev/null || pkgs+=(dpkg-dev)
	if [ ${#pkgs[@]} -gt 0 ]; then
		log "installing ${pkgs[*]}"
		apt_update
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >&2
	fi
	if [ -f "/usr/share/postgresql/$PGVER/extension/vector.control" ]; then
		return 0
	fi
	log "building pgvector from Debian trixie's source package"
	local src=/etc/apt/sources.list.d/mnemo-trixie-src.sources
	if [ ! -f "$src" ]; then
		as_root tee "$src" >/dev/null <<-EOF
			Types: deb-src
			URIs: http://deb.debian.org/debian
			Suites: trixie
			Components: main
			Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
		EOF
		apt_updated=
	fi
	apt_update
	local build
	build=$(mktemp -d)
	(
		cd "$build"
		apt-get source -qq pgvector >&2
		cd pgvector-*/
		make -s PG_CONFIG="$PGBIN/pg_config" OPTFLAGS="" >&2
		as_root make -s PG_CONFIG="$PGBIN/pg_config" install >&2
	)
	rm -rf "$build"
	[ -f "/usr/share/postgresql/$PGVER/extension/vector.control" ] || { log "pgvector did not install"; exit 1; }
}

# free_port prints a TCP port nothing listens on.
free_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 20000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	log "no free port"
	exit 1
}

start() {
	install
	local dir=${1:-}
	[ -n "$dir" ] || dir=$(mktemp -d)
	mkdir -p "$dir"
	local port
	port=$(free_port)
	local run=()
	if [ "$(id -u)" = 0 ]; then
		chown postgres: "$dir"
		chmod 700 "$dir"
		run=(runuser -u postgres --)
	fi
	"${run[@]}" "$PGBIN/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
	# A test cluster: durability off (fsync, synchronous_commit) for speed;
	# a socket directory of its own so nothing clashes with a system server.
	"${run[@]}" "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 \
		-o "-p $port -c listen_addresses=127.0.0.1 -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c shared_buffers=512MB -c maintenance_work_mem=512MB" start >&2
	echo "$port" >"$dir/port"
	"$PGBIN/psql" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -c "CREATE DATABASE mnemo" >&2
	"$PGBIN/psql" -q -h 127.0.0.1 -p "$port" -U postgres -d mnemo -c "CREATE EXTENSION IF NOT EXISTS vector; CREATE EXTENSION IF NOT EXISTS btree_gin" >&2
	log "cluster in $dir on port $port"
	echo "postgres://postgres@127.0.0.1:$port/mnemo?sslmode=disable"
}

stop() {
	local dir=${1:?usage: pg-test.sh stop DIR}
	if [ -f "$dir/data/postmaster.pid" ]; then
		local run=()
		[ "$(id -u)" = 0 ] && run=(runuser -u postgres --)
		"${run[@]}" "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
	fi
	rm -rf "$dir"
}

case "${1:-}" in
install) install ;;
start) start "${2:-}" ;;
stop) stop "${2:-}" ;;
*)
	echo "usage: $0 install | start [DIR] | stop DIR" >&2
	exit 2
	;;
esac
