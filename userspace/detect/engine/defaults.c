// SPDX-License-Identifier: GPL-2.0-only
/*
 * Defaults for what the configuration may leave out: Suricata's default
 * address and port variables (suricata.yaml's vars) and the standard rule
 * classes (configs/classification.config holds the same list; a unit test
 * keeps the two equal). A configuration that defines a variable or names a
 * classification file replaces these.
 */
#include <string.h>
#include "detect_int.h"

static const struct mk_detect_var default_address_vars[] = {
	{ "HOME_NET", "[192.168.0.0/16,10.0.0.0/8,172.16.0.0/12]" },
	{ "EXTERNAL_NET", "!$HOME_NET" },
	{ "HTTP_SERVERS", "$HOME_NET" },
	{ "SMTP_SERVERS", "$HOME_NET" },
	{ "SQL_SERVERS", "$HOME_NET" },
	{ "DNS_SERVERS", "$HOME_NET" },
	{ "TELNET_SERVERS", "$HOME_NET" },
	{ "AIM_SERVERS", "$EXTERNAL_NET" },
	{ "DC_SERVERS", "$HOME_NET" },
	{ "DNP3_SERVER", "$HOME_NET" },
	{ "DNP3_CLIENT", "$HOME_NET" },
	{ "MODBUS_CLIENT", "$HOME_NET" },
	{ "MODBUS_SERVER", "$HOME_NET" },
	{ "ENIP_CLIENT", "$HOME_NET" },
	{ "ENIP_SERVER", "$HOME_NET" },
};

static const struct mk_detect_var default_port_vars[] = {
	{ "HTTP_PORTS", "80" },
	{ "SHELLCODE_PORTS", "!80" },
	{ "ORACLE_PORTS", "1521" },
	{ "SSH_PORTS", "22" },
	{ "DNP3_PORTS", "20000" },
	{ "MODBUS_PORTS", "502" },
	{ "FILE_DATA_PORTS", "[$HTTP_PORTS,110,143]" },
	{ "FTP_PORTS", "21" },
	{ "GENEVE_PORTS", "6081" },
	{ "VXLAN_PORTS", "4789" },
	{ "TEREDO_PORTS", "3544" },
};

/* The classes used when no classification file is configured. */
const char mk_detect_builtin_classification[] =
	"config classification: not-suspicious,Not Suspicious Traffic,3\n"
	"config classification: unknown,Unknown Traffic,3\n"
	"config classification: bad-unknown,Potentially Bad Traffic,2\n"
	"config classification: attempted-recon,Attempted Information Leak,2\n"
	"config classification: successful-recon-limited,Information Leak,2\n"
	"config classification: successful-recon-largescale,Large Scale Information Leak,2\n"
	"config classification: attempted-dos,Attempted Denial of Service,2\n"
	"config classification: successful-dos,Denial of Service,2\n"
	"config classification: attempted-user,Attempted User Privilege Gain,1\n"
	"config classification: unsuccessful-user,Unsuccessful User Privilege Gain,1\n"
	"config classification: successful-user,Successful User Privilege Gain,1\n"
	"config classification: attempted-admin,Attempted Administrator Privilege Gain,1\n"
	"config classification: successful-admin,Successful Administrator Privilege Gain,1\n"
	"config classification: rpc-portmap-decode,Decode of an RPC Query,2\n"
	"config classification: shellcode-detect,Executable code was detected,1\n"
	"config classification: string-detect,A suspicious string was detected,3\n"
	"config classification: suspicious-filename-detect,A suspicious filename was detected,2\n"
	"config classification: suspicious-login,An attempted login using a suspicious username was "
	"detected,2\n"
	"config classification: system-call-detect,A system call was detected,2\n"
	"config classification: tcp-connection,A TCP connection was detected,4\n"
	"config classification: trojan-activity,A Network Trojan was detected,1\n"
	"config classification: unusual-client-port-connection,A client was using an unusual port,2\n"
	"config classification: network-scan,Detection of a Network Scan,3\n"
	"config classification: denial-of-service,Detection of a Denial of Service Attack,2\n"
	"config classification: non-standard-protocol,Detection of a non-standard protocol or event,2\n"
	"config classification: protocol-command-decode,Generic Protocol Command Decode,3\n"
	"config classification: web-application-activity,access to a potentially vulnerable web "
	"application,2\n"
	"config classification: web-application-attack,Web Application Attack,1\n"
	"config classification: misc-activity,Misc activity,3\n"
	"config classification: misc-attack,Misc Attack,2\n"
	"config classification: icmp-event,Generic ICMP event,3\n"
	"config classification: inappropriate-content,Inappropriate Content was Detected,1\n"
	"config classification: policy-violation,Potential Corporate Privacy Violation,1\n"
	"config classification: default-login-attempt,Attempt to login by a default username and "
	"password,2\n"
	"config classification: targeted-activity,Targeted Malicious Activity was Detected,1\n"
	"config classification: exploit-kit,Exploit Kit Activity Detected,1\n"
	"config classification: external-ip-check,Device Retrieving External IP Address Detected,2\n"
	"config classification: domain-c2,Domain Observed Used for C2 Detected,1\n"
	"config classification: pup-activity,Possibly Unwanted Program Detected,2\n"
	"config classification: credential-theft,Successful Credential Theft Detected,1\n"
	"config classification: social-engineering,Possible Social Engineering Attempted,2\n"
	"config classification: coin-mining,Crypto Currency Mining Activity Detected,2\n"
	"config classification: command-and-control,Malware Command and Control Activity Detected,1\n";

void mk_detect_cfg_defaults(struct mk_detect_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->address_vars = default_address_vars;
	c->naddress_vars = MK_ARRAY_SIZE(default_address_vars);
	c->port_vars = default_port_vars;
	c->nport_vars = MK_ARRAY_SIZE(default_port_vars);
}
