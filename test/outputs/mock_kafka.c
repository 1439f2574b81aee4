// SPDX-License-Identifier: GPL-2.0-only
/*
 * A Kafka cluster for tests and examples where Debian has no Kafka:
 * librdkafka's mock cluster (real Kafka protocol on 127.0.0.1, messages
 * kept in memory) with BROKERS brokers and TOPIC created with PARTITIONS
 * partitions. Prints the bootstrap servers on one line, then serves until
 * SIGTERM or SIGINT.
 *
 * usage: mock_kafka BROKERS TOPIC PARTITIONS
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	rd_kafka_mock_cluster_t *mc;
	rd_kafka_conf_t *conf;
	char err[256];
	rd_kafka_t *rk;

	if (argc != 4 || atoi(argv[1]) < 1 || atoi(argv[3]) < 1) {
		fprintf(stderr, "usage: mock_kafka BROKERS TOPIC PARTITIONS\n");
		return 2;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	conf = rd_kafka_conf_new();
	rd_kafka_conf_set(conf, "log_level", "3", err, sizeof(err));
	rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
	if (!rk) {
		fprintf(stderr, "mock_kafka: %s\n", err);
		return 1;
	}
	mc = rd_kafka_mock_cluster_new(rk, atoi(argv[1]));
	if (!mc || rd_kafka_mock_topic_create(mc, argv[2], atoi(argv[3]), 1)) {
		fprintf(stderr, "mock_kafka: the mock cluster does not start\n");
		return 1;
	}
	printf("%s\n", rd_kafka_mock_cluster_bootstraps(mc));
	fflush(stdout);
	while (!stop)
		usleep(100000);
	rd_kafka_mock_cluster_destroy(mc);
	rd_kafka_destroy(rk);
	return 0;
}
