/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SMB recognition (docs/applayer.md): a NetBIOS session message (type 0,
 * a 3-byte length) carrying an SMB1 ("\xffSMB"), SMB2/3 ("\xfeSMB") or
 * SMB3 transform ("\xfdSMB") header, in either direction, whatever the
 * port. Not parsed further: `alert smb` rules read the flow's stream.
 */
#ifndef MK_SMB_H
#define MK_SMB_H

#include <stdint.h>

/* Whether @p (@len bytes, the start of a TCP direction) is SMB: 1 yes, 0 no, -1 need more. */
int mk_smb_probe(const uint8_t *p, uint32_t len);

#endif /* MK_SMB_H */
