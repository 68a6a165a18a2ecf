// SPDX-License-Identifier: GPL-2.0
/*
 * An unprivileged user tries to make sprofil.ko write where it may not:
 *  - a root-owned file mapped MAP_SHARED PROT_READ, or MAP_PRIVATE
 *    read-only: START fails with EFAULT;
 *  - the same file MAP_PRIVATE writable: START works, the counts go to
 *    the private copy only;
 *  - root's System V shared memory attached SHM_RDONLY, and a sealed
 *    memfd root passes over a UNIX socket, mapped read-only: EFAULT;
 *  - root's /dev/sprofil fd passed over a UNIX socket: the session is the
 *    user's own, and an address only root has mapped is EFAULT;
 *  - vfork and CLONE_VM children starting into the shared buffer: no
 *    byte outside the buffer changes;
 *  - a page that ptrace (FOLL_FORCE) made private inside a read-only
 *    mapping: still EFAULT.
 * Every target is checksummed before and after, and root's view of them
 * must not change.  Runs as root, forking the user's processes.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "at.h"

#define PAGE		4096
#define ROOT_FILE	"/tmp/at_unpriv_root"
#define FILL		0xa5

static uint64_t spin;

static uint64_t checksum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

static uint64_t file_checksum(const char *path)
{
	static uint8_t buf[4 * PAGE];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));

	if (fd >= 0)
		close(fd);
	return n == sizeof(buf) ? checksum(buf, sizeof(buf)) : 0;
}

/* START with one buffer covering wl_work_a, and some sampled work. */
static int start_on(int fd, void *buf, size_t len)
{
	struct sprofil_region r = kt_region(buf, len,
					    wl_func_extent(wl_work_a).start,
					    0x10000);
	int err = kt_start(fd, &r, 1, SPROFIL_USHORT, NULL);

	if (!err)
		wl_spin_cpu(wl_work_a, spin, 0.1);
	return err;
}

static void *map_root_file(int flags, int prot)
{
	int fd = open(ROOT_FILE, O_RDONLY);
	void *p;

	if (fd < 0)
		return MAP_FAILED;
	p = mmap(NULL, 4 * PAGE, prot, flags, fd, 0);
	close(fd);
	return p;
}

/* The user's side of the file checks; exit status is the failed line. */
static int user_files(void *arg)
{
	uint8_t *p;
	int fd, err;

	(void)arg;
	if (at_become(AT_UID_A))
		return 1;
	fd = kt_open();
	p = map_root_file(MAP_SHARED, PROT_READ);
	err = start_on(fd, p, 4 * PAGE);
	KT_CHECK(p != MAP_FAILED && err == -EFAULT,
		 "shared read-only: %s", strerror(-err));
	KT_CHECK(mprotect(p, PAGE, PROT_READ | PROT_WRITE) == -1,
		 "mprotect to writable worked");
	p = map_root_file(MAP_PRIVATE, PROT_READ);
	err = start_on(fd, p, 4 * PAGE);
	KT_CHECK(p != MAP_FAILED && err == -EFAULT,
		 "private read-only: %s", strerror(-err));
	p = map_root_file(MAP_PRIVATE, PROT_READ | PROT_WRITE);
	err = start_on(fd, p, 4 * PAGE);
	KT_CHECK(p != MAP_FAILED && !err, "private writable: %s",
		 strerror(-err));
	kt_stop(fd);
	/* The private copy counted: not every byte is FILL any more. */
	for (size_t i = 0; i < 4 * PAGE; i++)
		if (p[i] != FILL)
			return 0;
	KT_CHECK(false, "no sample reached the private copy");
	return 0;
}

static int send_fd(int sock, int fd)
{
	char c = 'f';
	struct iovec iov = { &c, 1 };
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} u = { 0 };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.b, .msg_controllen = sizeof(u.b),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -errno;
}

static int recv_fd(int sock)
{
	char c;
	struct iovec iov = { &c, 1 };
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.b, .msg_controllen = sizeof(u.b),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &m, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* Where root maps a page after forking the user: only root has it. */
#define ROOT_ONLY_PAGE	0x3f0000000000ul

struct shared_targets {
	int sock;		/* UNIX socket to root */
	int shmid;		/* root's SysV segment, 0644 */
};

/*
 * The user's side of root's memory: SysV SHM_RDONLY, a sealed memfd and
 * root's sprofil fd, both received over the socket.
 */
static int user_shared(void *arg)
{
	struct shared_targets *t = arg;
	struct sprofil_status st;
	static uint16_t own[4096];
	int memfd, rootfd, err;
	uint64_t c;
	void *p;

	if (at_become(AT_UID_A))
		return 1;
	p = shmat(t->shmid, NULL, SHM_RDONLY);
	err = start_on(rootfd = kt_open(), p, 4 * PAGE);
	KT_CHECK(p != (void *)-1 && err == -EFAULT, "SysV SHM_RDONLY: %s",
		 strerror(-err));
	close(rootfd);

	memfd = recv_fd(t->sock);
	p = memfd < 0 ? MAP_FAILED :
			mmap(NULL, 4 * PAGE, PROT_READ, MAP_SHARED, memfd, 0);
	KT_CHECK(p != MAP_FAILED, "mapping root's memfd: %s", strerror(errno));
	KT_CHECK(mprotect(p, PAGE, PROT_READ | PROT_WRITE) == -1,
		 "mprotect of a write-sealed memfd worked");
	err = start_on(rootfd = kt_open(), p, 4 * PAGE);
	KT_CHECK(err == -EFAULT, "sealed memfd: %s", strerror(-err));
	close(rootfd);

	rootfd = recv_fd(t->sock);
	KT_CHECK(rootfd >= 0, "no fd from root");
	KT_CHECK(mincore((void *)ROOT_ONLY_PAGE, PAGE, (unsigned char *)&c) &&
		 errno == ENOMEM, "root's page is mapped here too");
	err = start_on(rootfd, (void *)ROOT_ONLY_PAGE, PAGE);
	KT_CHECK(err == -EFAULT, "root's address through root's fd: %s",
		 strerror(-err));
	err = start_on(rootfd, own, sizeof(own));
	KT_CHECK(!err, "own buffer through root's fd: %s", strerror(-err));
	err = kt_status(rootfd, &st);
	KT_CHECK(!err && (st.state & SPROFIL_STATE_ENABLED) && st.samples,
		 "the session through root's fd is not the caller's");
	KT_CHECK(wl_sum(own, 0, 0, 4096) > 0, "no count in the own buffer");
	/* Tell root to look at its own session now. */
	KT_CHECK(write(t->sock, "d", 1) == 1, "socket");
	KT_CHECK(read(t->sock, &err, 1) == 1, "socket");
	return 0;
}

/* A CLONE_VM child: starts into the parent's buffer and returns. */
static int clone_child(void *arg)
{
	uint8_t *page = arg;
	int fd = kt_open(), err;

	err = start_on(fd, page + 1024, 2048);
	close(fd);
	return err ? 1 : 0;
}

/* vfork and CLONE_VM children profiling into a buffer inside canaries. */
static int user_clone_vm(void *arg)
{
	static char stack[64 << 10] __attribute__((aligned(16)));
	uint8_t *page = wl_map(PAGE, PROT_READ | PROT_WRITE);
	uint64_t before;
	int status, err = 0;
	pid_t pid;

	(void)arg;
	if (at_become(AT_UID_A) || !page)
		return 1;
	memset(page, FILL, PAGE);
	memset(page + 1024, 0, 2048);
	before = checksum(page, 1024) ^ checksum(page + 3072, 1024);
	pid = vfork();
	if (pid == 0)
		_exit(clone_child(page));
	KT_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid &&
		 at_exited_ok(status), "vfork child");
	wl_spin_cpu(wl_work_a, spin, 0.1);
	pid = clone(clone_child, stack + sizeof(stack), CLONE_VM | SIGCHLD,
		    page);
	KT_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid &&
		 at_exited_ok(status), "CLONE_VM child");
	wl_spin_cpu(wl_work_a, spin, 0.1);
	err = kt_stop(kt_open());
	KT_CHECK((checksum(page, 1024) ^ checksum(page + 3072, 1024)) ==
		 before, "bytes outside the buffer changed");
	return err ? 2 : 0;
}

/* ptrace writes a read-only private mapping (FOLL_FORCE), then START. */
static int user_ptrace(void *arg)
{
	uint8_t *p;
	int status, err;
	pid_t pid;
	int sync[2];

	(void)arg;
	if (at_become(AT_UID_A) || pipe(sync))
		return 1;
	p = map_root_file(MAP_PRIVATE, PROT_READ);
	KT_CHECK(p != MAP_FAILED, "map: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		char c;

		/* The tracee: waits until its page was poked, then START. */
		if (read(sync[0], &c, 1) != 1)
			_exit(3);
		err = start_on(kt_open(), p, PAGE);
		_exit(err == -EFAULT ? 0 : 4);
	}
	KT_CHECK(ptrace(PTRACE_SEIZE, pid, 0, 0) == 0, "seize: %s",
		 strerror(errno));
	KT_CHECK(ptrace(PTRACE_INTERRUPT, pid, 0, 0) == 0 &&
		 waitpid(pid, &status, 0) == pid, "interrupt");
	errno = 0;
	KT_CHECK(ptrace(PTRACE_POKEDATA, pid, p, 0x1122334455667788ull) == 0,
		 "poke: %s", strerror(errno));
	KT_CHECK(ptrace(PTRACE_DETACH, pid, 0, 0) == 0, "detach");
	KT_CHECK(write(sync[1], "p", 1) == 1, "sync");
	KT_CHECK(waitpid(pid, &status, 0) == pid && at_exited_ok(status),
		 "a poked read-only page was not refused (status %#x)",
		 status);
	return 0;
}

static bool run_user(const char *what, int (*fn)(void *), void *arg)
{
	int status;

	if (at_wait(at_spawn(fn, arg), 60, &status) < 0)
		status = -1;
	return at_check(at_exited_ok(status), "unpriv: %s (status %#x)", what,
			status);
}

static void make_root_file(void)
{
	static uint8_t buf[4 * PAGE];
	int fd = open(ROOT_FILE, O_CREAT | O_TRUNC | O_WRONLY, 0644);

	memset(buf, FILL, sizeof(buf));
	if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf))
		perror(ROOT_FILE);
	if (fd >= 0)
		close(fd);
	chmod(ROOT_FILE, 0644);
}

static void shared_memory(void)
{
	struct shared_targets t;
	int sv[2], memfd, rootfd, status;
	uint8_t *shm, *mem, *own;
	uint64_t sum_shm, sum_mem, sum_own;
	struct sprofil_status st;
	pid_t pid;
	char c;

	t.shmid = shmget(IPC_PRIVATE, 4 * PAGE, IPC_CREAT | 0644);
	shm = shmat(t.shmid, NULL, 0);
	memfd = memfd_create("at_unpriv", MFD_ALLOW_SEALING);
	if (shm == (void *)-1 || memfd < 0 || ftruncate(memfd, 4 * PAGE) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		at_check(false, "unpriv: root's shared memory set up (%s)",
			 strerror(errno));
		return;
	}
	mem = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, memfd,
		   0);
	memset(shm, FILL, 4 * PAGE);
	memset(mem, FILL, 4 * PAGE);
	munmap(mem, 4 * PAGE);
	fcntl(memfd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW);
	mem = mmap(NULL, 4 * PAGE, PROT_READ, MAP_SHARED, memfd, 0);
	sum_shm = checksum(shm, 4 * PAGE);
	sum_mem = checksum(mem, 4 * PAGE);
	t.sock = sv[1];
	rootfd = kt_open();
	pid = at_spawn(user_shared, &t);
	close(sv[1]);		/* the user's end: EOF if it dies */
	own = mmap((void *)ROOT_ONLY_PAGE, PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (own == MAP_FAILED) {
		at_check(false, "unpriv: root maps a page of its own (%s)",
			 strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return;
	}
	memset(own, FILL, PAGE);
	sum_own = checksum(own, PAGE);
	send_fd(sv[0], memfd);
	send_fd(sv[0], rootfd);
	/* While the user profiles through our fd: is it our session? */
	if (read(sv[0], &c, 1) == 1) {
		at_check(!kt_status(rootfd, &st) && !st.state && !st.samples,
			 "unpriv: root's fd used by the user did not start root's session");
		if (write(sv[0], "k", 1) != 1)
			perror("socket");
	}
	if (at_wait(pid, 60, &status) < 0)
		status = -1;
	at_check(at_exited_ok(status),
		 "unpriv: root's SysV SHM_RDONLY, sealed memfd and sprofil fd over a UNIX socket refused or the user's own (status %#x)",
		 status);
	at_check(checksum(shm, 4 * PAGE) == sum_shm &&
		 checksum(mem, 4 * PAGE) == sum_mem &&
		 checksum(own, PAGE) == sum_own,
		 "unpriv: root's shared memory and pages unchanged");
	close(rootfd);
	close(memfd);
	close(sv[0]);
	shmdt(shm);
	shmctl(t.shmid, IPC_RMID, NULL);
	munmap(own, PAGE);
}

int main(void)
{
	uint64_t sum;

	setvbuf(stdout, NULL, _IOLBF, 0);
	spin = wl_calibrate(0.001);
	make_root_file();
	sum = file_checksum(ROOT_FILE);
	run_user("root's file: MAP_SHARED read-only and MAP_PRIVATE read-only refused, MAP_PRIVATE writable counts into the copy",
		 user_files, NULL);
	shared_memory();
	run_user("vfork and CLONE_VM children write only inside the buffer",
		 user_clone_vm, NULL);
	run_user("a read-only page made private by ptrace is still refused",
		 user_ptrace, NULL);
	at_check(sum && file_checksum(ROOT_FILE) == sum,
		 "unpriv: root's file unchanged");
	at_check(at_param_settles("pinned_pages", 0, 10),
		 "unpriv: no page pinned once the users' processes exited");
	return at_done();
}
