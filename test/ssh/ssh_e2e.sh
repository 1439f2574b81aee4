#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# SSH end to end (docs/applayer.md): Debian's sshd (host keys made here)
# serves in the testbench's namespace pair (test/testbench/lib.sh) on port
# 22 and on 2222; Debian's ssh client logs in with a key made here and runs
# a command, once with its defaults and once with other ciphers and MACs
# (another HASSH), and a third connection is refused its login. Captured on
# the client's veth, then `meerkat -r` with rules on the traffic:
# check_ssh_e2e.py compares every `ssh` event (banners, HASSH and HASSH
# server strings and hashes) with tshark's view of the same capture and
# checks the alerts (an `alert ssh` rule with content on the stream fires
# on each session, on either port; rules of other protocols do not);
# then the capture replayed into the live sensor gives the same ssh events.
# Cleanup (sshd, capture, namespaces) runs pass or fail.
#
# usage: ssh_e2e.sh MEERKAT CHECK_PY
set -euo pipefail
MEERKAT="$(readlink -f "$1")"
CHECK="$(readlink -f "$2")"
TB_WANT_QUEUES=1
# shellcheck source=test/testbench/lib.sh
. "$(dirname "$(readlink -f "$0")")/../testbench/lib.sh"

tb_require_root
for c in ssh ssh-keygen dumpcap tshark tcpreplay; do
	command -v "$c" >/dev/null || tb_skip "$c is not installed"
done
[ -x /usr/sbin/sshd ] || tb_skip "sshd is not installed (openssh-server)"
SRV_PID=""
CAP_PID=""
PRIVSEP_MADE=""
ssh_stop() {
	[ -n "$CAP_PID" ] && kill -INT "$CAP_PID" 2>/dev/null && wait "$CAP_PID" 2>/dev/null
	{ [ -n "$SRV_PID" ] && kill -TERM "$SRV_PID" 2>/dev/null && wait "$SRV_PID" 2>/dev/null; } || true
	CAP_PID=""
	SRV_PID=""
	return 0
}
ssh_exit() {
	local rc=$?
	set +e
	ssh_stop
	[ -z "$PRIVSEP_MADE" ] || rmdir /run/sshd
	(exit "$rc")
	tb_cleanup
}
tb_setup
trap ssh_exit EXIT
tb_wire_frames

W="$TB_TMP/ssh"
mkdir -p "$W"
chmod 700 "$W"
ssh-keygen -q -t ed25519 -N "" -f "$W/host_ed25519" || tb_fail "ssh-keygen (host) failed"
ssh-keygen -q -t ed25519 -N "" -f "$W/client" || tb_fail "ssh-keygen (client) failed"
cp "$W/client.pub" "$W/authorized_keys"
cat >"$W/sshd_config" <<CONF
ListenAddress $TB_SENSOR_IP:22
ListenAddress $TB_SENSOR_IP:2222
HostKey $W/host_ed25519
PidFile $W/sshd.pid
AuthorizedKeysFile $W/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowUsers root
CONF
# sshd's privilege separation directory (removed at the end if made here)
if [ ! -d /run/sshd ]; then
	mkdir /run/sshd
	PRIVSEP_MADE=1
fi
ip netns exec "$TB_NS_SENSOR" /usr/sbin/sshd -D -e -f "$W/sshd_config" 2>"$W/sshd.log" &
SRV_PID=$!
SSH=(ssh -F /dev/null -i "$W/client" -o BatchMode=yes -o StrictHostKeyChecking=no
	-o UserKnownHostsFile=/dev/null -o ConnectTimeout=5 -o LogLevel=ERROR)
ready() { tb_peer "${SSH[@]}" "root@$TB_SENSOR_IP" true; }
tb_wait 10 ready || tb_fail "sshd did not let the client in: $(tail -5 "$W/sshd.log")"

PCAP="$TB_TMP/ssh.pcap"
ip netns exec "$TB_NS_PEER" dumpcap -q -P -i "$TB_PEER_IF" -w "$PCAP" 2>"$TB_TMP/dumpcap.err" &
CAP_PID=$!
capturing() { kill -0 "$CAP_PID" && [ -s "$PCAP" ]; }
tb_wait 10 capturing || tb_fail "the capture did not start: $(cat "$TB_TMP/dumpcap.err")"
sleep 1
tb_peer "${SSH[@]}" "root@$TB_SENSOR_IP" echo hello >/dev/null || tb_fail "ssh (defaults) failed"
tb_peer "${SSH[@]}" -p 2222 -c aes128-ctr -m hmac-sha2-256 -o KexAlgorithms=ecdh-sha2-nistp256 \
	"root@$TB_SENSOR_IP" echo hello >/dev/null || tb_fail "ssh (aes128-ctr) failed"
tb_peer "${SSH[@]}" -o IdentitiesOnly=yes -i /dev/null "nobody@$TB_SENSOR_IP" true 2>/dev/null &&
	tb_fail "nobody was let in"
sleep 1
ssh_stop
[ -s "$PCAP" ] || tb_fail "nothing captured: $(cat "$TB_TMP/dumpcap.err")"
[ -z "${KEEP_PCAP:-}" ] || cp "$PCAP" "$KEEP_PCAP"

OUT="$TB_TMP/out"
mkdir -p "$OUT"
cat >"$TB_TMP/meerkat.yaml" <<CONF
outputs:
  - eve-log:
      enabled: yes
      filename: eve.json
      types: [flow, alert, ssh]
CONF
cat >"$TB_TMP/ssh.rules" <<'RULES'
alert ssh any any -> any any (msg:"ssh client banner"; flow:established,to_server; content:"SSH-2.0-OpenSSH"; depth:15; sid:1; rev:1;)
alert ssh any any -> any any (msg:"ssh server banner"; flow:established,to_client; content:"SSH-2.0-"; depth:8; sid:2; rev:1;)
alert smtp any any -> any any (msg:"not smtp"; content:"SSH-"; sid:3; rev:1;)
alert tcp any any -> any any (msg:"ssh app-layer-protocol"; flow:established,to_server; app-layer-protocol:ssh; content:"SSH-"; depth:4; sid:4; rev:1;)
alert ssh any any -> any any (msg:"ssh.proto"; flow:established,to_server; ssh.proto; content:"2.0"; bsize:3; sid:6; rev:1;)
alert ssh any any -> any any (msg:"server software"; flow:established,to_client; ssh_software; content:"OpenSSH_"; startswith; sid:7; rev:1;)
alert ssh any any -> any any (msg:"hassh string of aes128-ctr"; flow:established,to_server; ssh.hassh.string; content:"|3b|aes128-ctr|3b|hmac-sha2-256|3b|"; sid:8; rev:1;)
alert ssh any any -> any any (msg:"hassh is 32 digits"; ssh.hassh; bsize:32; sid:9; rev:1;)
alert ssh any any -> any any (msg:"hassh server"; flow:established,to_client; ssh.hassh.server.string; content:"chacha20-poly1305@openssh.com"; ssh.hassh.server; bsize:32; sid:10; rev:1;)
RULES
"$MEERKAT" -c "$TB_TMP/meerkat.yaml" -S "$TB_TMP/ssh.rules" -r "$PCAP" -l "$OUT" \
	--stats-json "$OUT/stats.json" >"$TB_TMP/mk.out" 2>&1 ||
	tb_fail "meerkat -r failed: $(tail -5 "$TB_TMP/mk.out")"
[ -z "${KEEP_EVE:-}" ] || cp "$OUT/eve.json" "$KEEP_EVE"
python3 "$CHECK" "$PCAP" "$OUT/eve.json" "$OUT/stats.json" 3 || tb_fail "see above"
tb_ok "ssh events agree with the dissector; the ssh rules fired"

tb_live_agrees "$MEERKAT" "$OUT/eve.json" "$PCAP" "ssh" -c "$TB_TMP/meerkat.yaml"
