/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The `decoder:` section: how common/parse.h decapsulates, in the XDP
 * program (rodata) and in the offline reader alike. The settings struct is
 * struct mk_parse_cfg (common/map_types.h, shared with the program); its key
 * table is decoder_cfg.c. Suricata keeps its tunnel switches here too
 * (decoder.vxlan.enabled, decoder.geneve.ports, ...).
 */
#ifndef MK_DECODER_CFG_H
#define MK_DECODER_CFG_H

struct mk_cfg_table;
extern const struct mk_cfg_table mk_decoder_cfg_table;

#endif /* MK_DECODER_CFG_H */
