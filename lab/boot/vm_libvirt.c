#include "boot/vm_libvirt.h"
#include "results/meta.h"
#include "base/interrupt.h"
#include "config.h"

#if !NUMALAB_HAVE_LIBVIRT
/* Built before `make setup` installed libvirt-dev (setup needs numalab first). */
static int not_built(struct error *err)
{
	return error_set(err, "this numalab was built without libvirt-dev: run `make setup` (installs it), "
			 "then `make`");
}

int vm_libvirt_open(const char *uri, struct vm_libvirt **out, struct error *err)
{
	(void)uri;
	*out = NULL;
	return not_built(err);
}

void vm_libvirt_close(struct vm_libvirt *lv)
{
	(void)lv;
}

int vm_libvirt_bind_host(struct vm_libvirt *lv, const struct topology *t, const char *map_arg,
			 struct error *err)
{
	(void)lv, (void)t, (void)map_arg;
	return not_built(err);
}

int vm_libvirt_run(struct vm_libvirt *lv, const struct vm_spec *spec, int timeout_s,
		   const struct vm_io *io, struct vm_result *res, const char *xml_path,
		   struct strvec *argv_out, struct error *err)
{
	(void)lv, (void)spec, (void)timeout_s, (void)io, (void)res, (void)xml_path, (void)argv_out;
	return not_built(err);
}

void vm_libvirt_meta(const struct vm_libvirt *lv, const struct topology *t, struct buf *meta)
{
	(void)lv, (void)t;
	meta_add(meta, META_BACKEND, "qemu");
}
#else
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/dynlib.h"

/* The libvirt functions used here, loaded on the first connection (dynlib.h). */
#define LIBVIRT_API(X)                                                                            \
	X(virConnectClose) X(virConnectDomainEventDeregisterAny) X(virConnectDomainEventRegisterAny) \
	X(virConnectGetCapabilities) X(virConnectGetLibVersion) X(virConnectGetURI)              \
	X(virConnectGetVersion) X(virConnectIsAlive) X(virConnectOpen) X(virDomainCreateXML)     \
	X(virDomainDestroy) X(virDomainFree) X(virDomainGetName) X(virEventAddHandle)            \
	X(virEventAddTimeout) X(virEventRegisterDefaultImpl) X(virEventRemoveHandle)             \
	X(virEventRemoveTimeout) X(virEventRunDefaultImpl) X(virEventUpdateTimeout)              \
	X(virGetLastErrorMessage) X(virGetVersion) X(virSetErrorFunc)
static struct { LIBVIRT_API(DYNLIB_SLOT) } lv_api;

static int libvirt_load(struct error *err)
{
	static void *lib;
#define LIBVIRT_RESOLVE(f) || dynlib_symbol(lib, #f, (void **)&lv_api.f, err)
	return dynlib_open(&lib, "libvirt.so.0", "libvirt0", err) LIBVIRT_API(LIBVIRT_RESOLVE) ? -1 : 0;
#undef LIBVIRT_RESOLVE
}

/* After a crash is seen, how long the guest gets to end by itself (panic=-1), as vm.c. */
#define CRASH_GRACE_S 10
/* After the domain stopped, how long the sockets get to deliver their last bytes. */
#define DRAIN_S 5

struct vm_libvirt {
	virConnectPtr conn;
	char asked_uri[512];   /* as given ("" = the default), to connect again */
	char uri[512];
	char versions[160];
	struct libvirt_host_map host;
};

static void quiet_errors(void *opaque, virErrorPtr e)
{
	(void)opaque;
	(void)e;   /* reported through err by whoever gives up */
}

static const char *last_error(void)
{
	const char *msg = lv_api.virGetLastErrorMessage();

	return msg ? msg : "unknown libvirt error";
}

static void version_string(unsigned long v, char *out, size_t cap)
{
	snprintf(out, cap, "%lu.%lu.%lu", v / 1000000, v / 1000 % 1000, v % 1000);
}

static void note_versions(struct vm_libvirt *lv)
{
	unsigned long lib = 0, daemon = 0, hv = 0;
	char a[32] = "?", b[32] = "?", c[32] = "?";

	if (!lv_api.virGetVersion(&lib, NULL, NULL))
		version_string(lib, a, sizeof(a));
	if (!lv_api.virConnectGetLibVersion(lv->conn, &daemon))
		version_string(daemon, b, sizeof(b));
	if (!lv_api.virConnectGetVersion(lv->conn, &hv))
		version_string(hv, c, sizeof(c));
	snprintf(lv->versions, sizeof(lv->versions), "%s (daemon %s, qemu %s)", a, b, c);
}

int vm_libvirt_open(const char *uri, struct vm_libvirt **out, struct error *err)
{
	static int event_loop;
	struct vm_libvirt *lv;
	char *got;

	if (libvirt_load(err))
		return -1;
	lv_api.virSetErrorFunc(NULL, quiet_errors);
	/* Events need the loop registered before the connection opens. */
	if (!event_loop && lv_api.virEventRegisterDefaultImpl())
		return error_set(err, "libvirt event loop: %s", last_error());
	event_loop = 1;
	lv = xcalloc(1, sizeof(*lv));
	lv->conn = lv_api.virConnectOpen(uri);
	if (!lv->conn) {
		error_set(err, "cannot connect to libvirt at %s: %s; start libvirtd (docs/libvirt.md) or give --uri",
			  uri ? uri : getenv("LIBVIRT_DEFAULT_URI") ? getenv("LIBVIRT_DEFAULT_URI") : "the default URI",
			  last_error());
		free(lv);
		return -1;
	}
	snprintf(lv->asked_uri, sizeof(lv->asked_uri), "%s", uri ? uri : "");
	got = lv_api.virConnectGetURI(lv->conn);
	snprintf(lv->uri, sizeof(lv->uri), "%s", got ? got : uri ? uri : "?");
	free(got);
	note_versions(lv);
	*out = lv;
	return 0;
}

/*
 * The daemon drops a client that answers no keepalive for ~30 s, and nothing
 * turns our event loop between the connection and the guest (the KVM probe,
 * a kernel build, libguestfs).  Ask the daemon something; connect again if the
 * connection is gone.
 */
static int reconnect_if_lost(struct vm_libvirt *lv, struct error *err)
{
	unsigned long version;
	virConnectPtr fresh;

	if (lv_api.virConnectIsAlive(lv->conn) == 1 && !lv_api.virConnectGetLibVersion(lv->conn, &version))
		return 0;
	fresh = lv_api.virConnectOpen(lv->asked_uri[0] ? lv->asked_uri : NULL);
	if (!fresh)
		return error_set(err, "libvirt at %s: the connection was lost and cannot be opened again: %s",
				 lv->uri, last_error());
	lv_api.virConnectClose(lv->conn);
	lv->conn = fresh;
	return 0;
}

void vm_libvirt_close(struct vm_libvirt *lv)
{
	if (!lv)
		return;
	lv_api.virConnectClose(lv->conn);
	free(lv);
}

/*
 * The CPUs of host node id from the capabilities XML ("0,1,2,3"); -1 when
 * the host has no such node.
 */
static int host_node_cpus(const char *caps, int id, char *out, size_t cap)
{
	char open[32];
	const char *cell, *end;
	size_t len = 0;

	snprintf(open, sizeof(open), "<cell id='%d'>", id);
	cell = strstr(caps, open);
	if (!cell)
		return -1;
	end = strstr(cell, "</cell>");
	out[0] = '\0';
	for (const char *p = strstr(cell, "<cpu id='"); p && (!end || p < end); p = strstr(p + 1, "<cpu id='"))
		len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%d", len ? "," : "", atoi(p + 9));
	return len < cap ? 0 : -1;
}

/* "0, 1" from the capabilities' cells, for the refusal. */
static void host_nodes_list(const char *caps, char *out, size_t cap)
{
	size_t len = 0;

	out[0] = '\0';
	for (const char *p = strstr(caps, "<cell id='"); p && len < cap; p = strstr(p + 1, "<cell id='"))
		len += (size_t)snprintf(out + len, cap - len, "%s%d", len ? ", " : "", atoi(p + 10));
}

int vm_libvirt_bind_host(struct vm_libvirt *lv, const struct topology *t, const char *map_arg,
			 struct error *err)
{
	char *caps;
	int rc = 0;

	if (libvirt_parse_host_nodes(map_arg, t, &lv->host, err))
		return -1;
	caps = lv_api.virConnectGetCapabilities(lv->conn);
	if (!caps)
		return error_set(err, "libvirt capabilities of %s: %s", lv->uri, last_error());
	for (int i = 0; i < t->nr_nodes && !rc; i++) {
		char have[256];

		if (!host_node_cpus(caps, lv->host.host_node[i], lv->host.host_cpus[i],
				    sizeof(lv->host.host_cpus[i])) && lv->host.host_cpus[i][0])
			continue;
		host_nodes_list(caps, have, sizeof(have));
		rc = error_input(err, "--host-nodes %s: guest node %d wants host node %d, but the host behind %s has "
			         "NUMA node%s %s (with CPUs); map onto those (e.g. --host-nodes %d=%d) or drop --host-nodes",
			         map_arg, i, lv->host.host_node[i], lv->uri, strchr(have, ',') ? "s" : "",
			         have[0] ? have : "none", i, atoi(have));
	}
	free(caps);
	if (rc)
		lv->host.bound = 0;
	return rc;
}

void vm_libvirt_meta(const struct vm_libvirt *lv, const struct topology *t, struct buf *meta)
{
	struct buf line = BUF_INIT;

	if (!lv) {
		meta_add(meta, META_BACKEND, "qemu");
		return;
	}
	meta_add(meta, META_BACKEND, "libvirt");
	meta_add(meta, META_LIBVIRT, "%s", lv->versions);
	meta_add(meta, META_LIBVIRT_URI, "%s", lv->uri);
	if (lv->host.bound)
		libvirt_host_map_line(t, &lv->host, &line);
	meta_add(meta, META_HOST_NUMA, "%s", lv->host.bound ? buf_str(&line) : "none");
	buf_free(&line);
}

/* ---- one guest ---- */

struct channel {
	struct session *s;
	int listen_fd, fd;        /* -1 when closed */
	int listen_watch, watch;  /* -1 when not registered */
	int is_tap;
};

struct session {
	struct vm_libvirt *lv;
	const struct vm_io *io;
	struct vm_result *res;
	const char *name;
	virDomainPtr dom;
	struct channel console, tap;
	double start, crash_deadline, drain_deadline;
	int deadline_timer, tick_timer;
	int destroyed, stopped, conn_lost;
	enum vm_end end;
};

static void progress(const struct session *s, const char *phase)
{
	if (s->io->on_progress)
		s->io->on_progress(s->io->ctx, phase);
}

static void destroy(struct session *s)
{
	if (s->dom && !s->destroyed && !s->stopped)
		lv_api.virDomainDestroy(s->dom);
	s->destroyed = 1;
}

/* A guest's bytes to fd (-1: dropped); a full disk must not stop the guest's streams. */
static void write_all_fd(int fd, const char *data, size_t len)
{
	if (fd >= 0)
		(void)write_all(fd, data, len);
}

static void channel_close(struct channel *ch)
{
	if (ch->watch >= 0)
		lv_api.virEventRemoveHandle(ch->watch);
	if (ch->listen_watch >= 0)
		lv_api.virEventRemoveHandle(ch->listen_watch);
	if (ch->fd >= 0)
		close(ch->fd);
	if (ch->listen_fd >= 0)
		close(ch->listen_fd);
	ch->watch = ch->listen_watch = ch->fd = ch->listen_fd = -1;
}

static void crash_seen(struct session *s)
{
	if (s->crash_deadline || s->stopped)
		return;
	s->end = VM_CRASHED;
	s->crash_deadline = now_s() + CRASH_GRACE_S;
	progress(s, "guest crashed");
}

static void on_data(int watch, int fd, int events, void *opaque)
{
	struct channel *ch = opaque;
	struct session *s = ch->s;
	char chunk[16384];
	ssize_t n = read(fd, chunk, sizeof(chunk));

	(void)watch;
	(void)events;
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		channel_close(ch);
		return;
	}
	s->res->last_output_s = now_s() - s->start;
	if (ch->is_tap) {
		s->res->last_tap_s = s->res->last_output_s;
		if (s->res->first_tap_s < 0)
			s->res->first_tap_s = s->res->last_tap_s;
		s->io->on_tap(s->io->ctx, chunk, (size_t)n);
		return;
	}
	write_all_fd(s->io->console_fd, chunk, (size_t)n);
	console_scan_feed(&s->res->scan, chunk, (size_t)n);
	if (s->res->scan.finding != CONSOLE_CLEAN)
		crash_seen(s);
}

/* QEMU connected: stream from the new socket, stop listening. */
static void on_accept(int watch, int fd, int events, void *opaque)
{
	struct channel *ch = opaque;
	int conn = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	(void)events;
	if (conn < 0)
		return;
	lv_api.virEventRemoveHandle(watch);
	ch->listen_watch = -1;
	close(ch->listen_fd);
	ch->listen_fd = -1;
	ch->fd = conn;
	ch->watch = lv_api.virEventAddHandle(conn, VIR_EVENT_HANDLE_READABLE, on_data, ch, NULL);
}

static int channel_listen(struct session *s, struct channel *ch, const char *path, int is_tap,
			  struct error *err)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };

	*ch = (struct channel){ .s = s, .listen_fd = -1, .fd = -1, .listen_watch = -1, .watch = -1,
				.is_tap = is_tap };
	if (strlen(path) >= sizeof(addr.sun_path))
		return error_set(err, "socket path too long: %s", path);
	strcpy(addr.sun_path, path);
	ch->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (ch->listen_fd < 0 || bind(ch->listen_fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(ch->listen_fd, 1))
		return error_set(err, "listen on %s: %s", path, strerror(errno));
	ch->listen_watch = lv_api.virEventAddHandle(ch->listen_fd, VIR_EVENT_HANDLE_READABLE, on_accept, ch, NULL);
	if (ch->listen_watch < 0)
		return error_set(err, "libvirt event handle: %s", last_error());
	return 0;
}

static int lifecycle(virConnectPtr conn, virDomainPtr dom, int event, int detail, void *opaque)
{
	struct session *s = opaque;
	const char *name = lv_api.virDomainGetName(dom);

	(void)conn;
	if (!name || strcmp(name, s->name))
		return 0;
	if (event == VIR_DOMAIN_EVENT_CRASHED) {
		crash_seen(s);   /* pvpanic: the guest said so; on_crash destroys it */
	} else if (event == VIR_DOMAIN_EVENT_STOPPED && !s->stopped) {
		s->stopped = 1;
		s->drain_deadline = now_s() + DRAIN_S;
		s->res->qemu_status = detail == VIR_DOMAIN_EVENT_STOPPED_SHUTDOWN ? 0
				      : detail == VIR_DOMAIN_EVENT_STOPPED_DESTROYED ? 128 + SIGKILL : -1;
		if (detail == VIR_DOMAIN_EVENT_STOPPED_CRASHED)
			crash_seen(s);
	}
	return 0;
}

static void on_deadline(int timer, void *opaque)
{
	struct session *s = opaque;

	lv_api.virEventUpdateTimeout(timer, -1);
	if (s->stopped || s->destroyed)
		return;
	if (!s->crash_deadline)
		s->end = VM_TIMEOUT;
	destroy(s);
}

static void on_tick(int timer, void *opaque)
{
	struct session *s = opaque;

	(void)timer;
	progress(s, NULL);
	if (interrupt_caught() && !s->stopped && !s->destroyed) {
		s->end = VM_INTERRUPTED;
		destroy(s);
	}
	if (s->crash_deadline && now_s() >= s->crash_deadline)
		destroy(s);
	if (s->io->stop && !s->stopped && !s->destroyed && s->io->stop(s->io->ctx, now_s() - s->start, s->res)) {
		s->end = VM_STOPPED;
		destroy(s);
	}
	if (!lv_api.virConnectIsAlive(s->lv->conn))
		s->conn_lost = 1;
}

static int finished(const struct session *s)
{
	int streams_open = s->console.fd >= 0 || s->tap.fd >= 0;

	return s->conn_lost || (s->stopped && (!streams_open || now_s() >= s->drain_deadline));
}

/* libvirt's own log of the domain (QEMU's stderr), when the daemon is local. */
static void copy_domain_log(const char *name, int to_fd)
{
	char path[512], chunk[8192];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/var/log/libvirt/qemu/%s.log", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		write_all_fd(to_fd, chunk, (size_t)n);
	close(fd);
	unlink(path);   /* the name is unique to this run: nobody else reads it */
}

static void supervise(struct session *s)
{
	while (!finished(s))
		if (lv_api.virEventRunDefaultImpl() < 0)
			break;
}

static int create(struct session *s, const char *xml, struct error *err)
{
	char phase[80];

	s->start = now_s();
	progress(s, "booting (libvirt)");
	s->dom = lv_api.virDomainCreateXML(s->lv->conn, xml, VIR_DOMAIN_START_AUTODESTROY);
	if (!s->dom)
		return error_set(err, "libvirt could not create domain %s at %s: %s", s->name, s->lv->uri,
				 last_error());
	snprintf(phase, sizeof(phase), "domain created in %.1f s; booting", now_s() - s->start);
	progress(s, phase);
	return 0;
}

int vm_libvirt_run(struct vm_libvirt *lv, const struct vm_spec *spec, int timeout_s,
		   const struct vm_io *io, struct vm_result *res, const char *xml_path,
		   struct strvec *argv_out, struct error *err)
{
	char dir[] = "/tmp/numalab-lv.XXXXXX", con_path[64], tap_path[64], name[128];
	struct libvirt_domain d = { name, con_path, tap_path, &lv->host };
	struct session s = { .lv = lv, .io = io, .res = res, .name = name, .end = VM_POWEROFF,
			     .deadline_timer = -1, .tick_timer = -1 };
	struct buf xml = BUF_INIT;
	int callback = -1, rc;

	memset(res, 0, sizeof(*res));
	res->first_tap_s = res->last_tap_s = res->last_output_s = -1;
	res->qemu_status = -1;
	console_scan_init(&res->scan);
	s.console = s.tap = (struct channel){ .listen_fd = -1, .fd = -1, .listen_watch = -1, .watch = -1 };
	if (!mkdtemp(dir))
		return error_set(err, "mkdtemp %s: %s", dir, strerror(errno));
	snprintf(con_path, sizeof(con_path), "%s/console", dir);
	snprintf(tap_path, sizeof(tap_path), "%s/tap", dir);
	snprintf(name, sizeof(name), "numalab-%.60s-%ld", spec->topo->name, (long)getpid());
	rc = reconnect_if_lost(lv, err) || libvirt_domain_xml(spec, &d, &xml, err);
	if (!rc)
		rc = write_file_atomic(xml_path, xml.data, xml.len, err);
	if (argv_out) {
		const char *line[] = { "virsh", "-c", lv->uri, "create", "--autodestroy", xml_path };

		for (size_t i = 0; i < sizeof(line) / sizeof(line[0]); i++)
			strvec_push(argv_out, line[i]);
	}
	if (!rc)
		rc = channel_listen(&s, &s.console, con_path, 0, err);
	if (!rc)
		rc = channel_listen(&s, &s.tap, tap_path, 1, err);
	if (!rc) {
		/* libvirt calls it by the event's own type; VIR_DOMAIN_EVENT_CALLBACK()
		 * casts straight to the generic one, which clang >= 19 refuses
		 * (-Wcast-function-type-mismatch): through void (*)(void), as C allows. */
		callback = lv_api.virConnectDomainEventRegisterAny(lv->conn, NULL, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
							    (virConnectDomainEventGenericCallback)(void (*)(void))lifecycle,
							    &s, NULL);
		if (callback < 0)
			rc = error_set(err, "libvirt lifecycle events: %s", last_error());
	}
	if (!rc)
		rc = create(&s, buf_str(&xml), err);
	if (!rc) {
		s.deadline_timer = lv_api.virEventAddTimeout(timeout_s * 1000, on_deadline, &s, NULL);
		s.tick_timer = lv_api.virEventAddTimeout(1000, on_tick, &s, NULL);
		supervise(&s);
		res->end = s.end;
		if (s.conn_lost)
			rc = error_set(err, "lost the connection to libvirt at %s while %s ran", lv->uri, name);
		res->total_s = now_s() - s.start;
		copy_domain_log(name, io->qemu_log_fd);
	}
	if (s.deadline_timer >= 0)
		lv_api.virEventRemoveTimeout(s.deadline_timer);
	if (s.tick_timer >= 0)
		lv_api.virEventRemoveTimeout(s.tick_timer);
	if (callback >= 0)
		lv_api.virConnectDomainEventDeregisterAny(lv->conn, callback);
	if (s.dom) {
		destroy(&s);   /* a lost connection: AUTODESTROY would, but say so */
		lv_api.virDomainFree(s.dom);
	}
	channel_close(&s.console);
	channel_close(&s.tap);
	unlink(con_path);
	unlink(tap_path);
	rmdir(dir);
	buf_free(&xml);
	return rc;
}
#endif
