/*
 * http_testlib.h - the HTTP the debuginfod tests need: a GET against a
 * real server (its /metrics), and a stub server on 127.0.0.1 that
 * misbehaves on purpose (accepts and never answers, or sends a body we
 * choose: another binary, garbage, too many bytes with or without a
 * length).  The stub runs in a thread of the test and counts requests.
 */
#ifndef HTTP_TESTLIB_H
#define HTTP_TESTLIB_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A port nothing listens on now (the kernel's pick). */
static inline int
free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* GET path from 127.0.0.1:port; the body (malloc'd, NUL-terminated) or NULL. */
static inline char *
http_get(int port, const char *path)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	size_t n = 0, cap = 1 << 16;
	char req[512], *buf = malloc(cap), *body;
	ssize_t r;

	if (fd < 0 || buf == NULL || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0)
		goto fail;
	snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req))
		goto fail;
	while ((r = read(fd, buf + n, cap - n - 1)) > 0) {
		n += r;
		if (n + 1 == cap) {
			char *g = realloc(buf, cap *= 2);
			if (g == NULL)
				goto fail;
			buf = g;
		}
	}
	buf[n] = '\0';
	close(fd);
	if ((body = strstr(buf, "\r\n\r\n")) == NULL || strncmp(buf, "HTTP/1.", 7) != 0 ||
	    strncmp(buf + 9, "200", 3) != 0) {
		free(buf);
		return NULL;
	}
	memmove(buf, body + 4, strlen(body + 4) + 1);
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/* The value of the Prometheus sample whose line starts with `name ` in a
 * server's /metrics; -1 when absent or unreachable. */
static inline double
http_metric(int port, const char *name)
{
	char *m = http_get(port, "/metrics"), *p;
	double v = -1;
	size_t len = strlen(name);

	for (p = m; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		if (strncmp(p, name, len) == 0 && p[len] == ' ') {
			v = atof(p + len + 1);
			break;
		}
	free(m);
	return v;
}

enum stub_mode {
	STUB_HANG,		/* read the request, never answer, keep the connection */
	STUB_BODY,		/* 200 with Content-Length and body */
	STUB_CHUNKED,		/* 200, chunked, no length: body, then zeros up to chunked_bytes */
};

struct http_stub {
	int		port;
	int		listen_fd;
	pthread_t	thread;
	atomic_int	mode;
	const char	*body;		/* STUB_BODY */
	size_t		body_len;
	size_t		chunked_bytes;	/* STUB_CHUNKED */
	atomic_int	requests;	/* connections whose request was read */
	atomic_size_t	sent;		/* body bytes the client took, all requests */
	atomic_bool	stop;
};

static inline void
stub_answer(struct http_stub *s, int fd)
{
	char head[256];

	if (s->mode == STUB_BODY) {
		int n = snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n"
				 "Connection: close\r\n\r\n", s->body_len);
		if (write(fd, head, n) != n)
			return;
		for (size_t off = 0; off < s->body_len && !s->stop; ) {
			ssize_t w = write(fd, s->body + off, s->body_len - off);
			if (w <= 0)
				return;
			off += w;
			s->sent += w;
		}
		return;
	}
	char chunk[8192];
	int n = snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
			 "Connection: close\r\n\r\n");
	if (write(fd, head, n) != n)
		return;
	for (size_t off = 0; off < s->chunked_bytes && !s->stop; off += sizeof(chunk)) {
		memset(chunk, 0, sizeof(chunk));
		if (off < s->body_len)
			memcpy(chunk, s->body + off, s->body_len - off < sizeof(chunk) ?
			       s->body_len - off : sizeof(chunk));
		n = snprintf(head, sizeof(head), "%zx\r\n", sizeof(chunk));
		if (write(fd, head, n) != n || write(fd, chunk, sizeof(chunk)) != sizeof(chunk) ||
		    write(fd, "\r\n", 2) != 2)
			return;
		s->sent += sizeof(chunk);
	}
	if (write(fd, "0\r\n\r\n", 5) != 5)
		return;
}

/* Connections are answered one at a time; hung ones are held open and
 * silent until the stub stops. */
static inline void *
stub_main(void *arg)
{
	struct http_stub *s = arg;
	int held[64], nheld = 0;

	while (!s->stop) {
		struct pollfd p = { .fd = s->listen_fd, .events = POLLIN };
		char req[4096];
		size_t n = 0;
		int fd;

		if (poll(&p, 1, 50) <= 0)
			continue;
		if ((fd = accept(s->listen_fd, NULL, NULL)) < 0)
			continue;
		while (n < sizeof(req) - 1) {
			ssize_t r = read(fd, req + n, sizeof(req) - 1 - n);
			if (r <= 0)
				break;
			n += r;
			req[n] = '\0';
			if (strstr(req, "\r\n\r\n"))
				break;
		}
		s->requests++;
		if (s->mode == STUB_HANG && nheld < 64) {
			held[nheld++] = fd;
			continue;
		}
		stub_answer(s, fd);
		close(fd);
	}
	while (nheld > 0)
		close(held[--nheld]);
	return NULL;
}

static inline void
stub_start(struct http_stub *s, enum stub_mode mode)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int one = 1;

	s->mode = mode;
	s->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(s->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (s->listen_fd < 0 || bind(s->listen_fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    listen(s->listen_fd, 16) != 0 ||
	    getsockname(s->listen_fd, (struct sockaddr *)&a, &len) != 0) {
		perror("stub");
		exit(2);
	}
	s->port = ntohs(a.sin_port);
	pthread_create(&s->thread, NULL, stub_main, s);
}

static inline void
stub_stop(struct http_stub *s)
{
	s->stop = true;
	pthread_join(s->thread, NULL);
	close(s->listen_fd);
}

#endif /* HTTP_TESTLIB_H */
