#!/usr/bin/env bash
# Installs every Debian 12 package that meerkat's build, tests, benchmarks and
# demo need. Idempotent: packages already present are left alone.
set -euo pipefail

PKGS=(
	build-essential pkg-config meson ninja-build
	clang llvm libclang-rt-14-dev clang-format-14
	libbpf-dev libxdp-dev xdp-tools bpftool libelf-dev zlib1g-dev linux-libc-dev
	libjansson-dev libpcap-dev nettle-dev libpcre2-dev libhyperscan-dev libyaml-dev libcap-ng-dev
	libcriterion-dev libhtp-dev libssl-dev nginx-light unbound dnsutils openssl
	libhiredis-dev librdkafka-dev libmicrohttpd-dev
	redis-server kcat jq sqlite3 prometheus exabgp gobgpd bird2 curl socat
	iproute2 ethtool tcpreplay tshark python3-scapy python3-yaml
	shellcheck openssh-server openssh-client python3-aiosmtpd python3-pyftpdlib
	suricata-update
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done

if ((${#missing[@]})); then
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps.sh: missing packages (${missing[*]}); run as root" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
