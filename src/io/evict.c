/* Page-cache eviction of what a scan read: see io/evict.h. */
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io/evict.h"

size_t ss_page_size(void)
{
	/* relaxed: every thread computes the same value */
	static atomic_size_t cached;
	size_t pg = atomic_load_explicit(&cached, memory_order_relaxed);
	if (!pg) {
		long v = sysconf(_SC_PAGESIZE);
		pg = v > 0 ? (size_t)v : 4096;
		atomic_store_explicit(&cached, pg, memory_order_relaxed);
	}
	return pg;
}

void ss_evict_note(struct ss_evict_span *sp, int fd, int64_t off, size_t len)
{
	sp->n = 0;
	if (len == 0)
		return;
	const int64_t pg = (int64_t)ss_page_size();
	int64_t aoff = off & ~(pg - 1);
	size_t alen = (size_t)((off + (int64_t)len - aoff + pg - 1) & ~(pg - 1));
	size_t npages = alen / (size_t)pg;
	if (npages > SS_EVICT_SPAN_PAGES) {
		/* past what we track: leave the tail alone rather than guess */
		npages = SS_EVICT_SPAN_PAGES;
		alen = npages * (size_t)pg;
	}
	/* mapped, never touched (munmap below): mincore reads nothing */
	void *m = mmap(NULL, alen, PROT_READ, MAP_SHARED, fd, aoff);
	if (m == MAP_FAILED)
		return;
	unsigned char vec[SS_EVICT_SPAN_PAGES];
	if (mincore(m, alen, vec) == 0) {
		for (size_t i = 0; i < npages; i++)
			sp->cold[i] = !(vec[i] & 1);
		sp->off = aoff;
		sp->n = (uint32_t)npages;
	}
	munmap(m, alen);
}

uint64_t ss_evict_drop(struct ss_evict_span *sp, int fd)
{
	const int64_t pg = (int64_t)ss_page_size();
	uint64_t dropped = 0;
	uint32_t n = sp->n;
	for (uint32_t i = 0; i < n;) {
		if (!sp->cold[i]) {
			i++;
			continue;
		}
		/* one call per run of cold pages */
		uint32_t j = i;
		while (j < n && sp->cold[j])
			j++;
		if (posix_fadvise(fd, sp->off + (int64_t)i * pg, (int64_t)(j - i) * pg, POSIX_FADV_DONTNEED) == 0)
			dropped += (uint64_t)(j - i) * (uint64_t)pg;
		i = j;
	}
	sp->n = 0;
	return dropped;
}

void ss_evict_no_readahead(int fd)
{
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
}
