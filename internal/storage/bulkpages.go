package storage

import "math"

// An index build adds its entries in record order, so the entries of one
// first-field value (AddHead's head: a category, a host) arrive spread
// over the whole load, one in every hundred or so. Appended to the arena
// as they came, the sorted entries of a group lie a hundred entries apart
// there, and memRun's gather read each with a cache miss of its own (10%
// of a {cat: 1, ts: -1} build over a million documents). So an entry with
// a head goes to a page of the arena kept for its head: the sort then
// reads each group's entries from consecutive bytes. The pages also give
// each entry its group as it is added, so bucketSort's grouping need not
// look each head up again.

// headPage is where a head's next entry goes: chunk l.chunks[chunk],
// bytes off to end.
type headPage struct{ chunk, off, end int }

// headPages is the load's pages, by head.
type headPages struct {
	ids   map[string]int32 // head → group id
	heads [][]byte         // each group's head
	cur   []headPage       // each group's current page
	// gids[i] is ents[i]'s group while every entry added has had a page
	// (off: some entry had none, and bucketSort looks the heads up).
	gids []int32
	off  bool
}

// pageSize is the size of one head's page.
const pageSize = 16 << 10

// Heads get pages while they are few, or rare beside the entries: a
// page partly filled is memory the load's budget counts and no entry
// uses, at most pageSize/pagedEntriesPerHead bytes per entry beyond the
// first freePagedHeads heads. The pages together take at most half the
// load's budget: a load whose pages alone filled it would spill a run
// every few entries once its heads had each taken one.
const (
	freePagedHeads      = 256
	pagedEntriesPerHead = 512
	maxPagedHeads       = 4096
)

func (p *headPages) reset() {
	clear(p.ids)
	p.heads, p.cur, p.gids, p.off = p.heads[:0], p.cur[:0], p.gids[:0], false
}

// page returns the page, with room for n more bytes, of the entry key
// about to be added with head (AddHead), and notes the entry's group; it
// returns nil when the entry goes to the arena's end instead.
func (l *SortedLoad) page(key []byte, head, n int) *headPage {
	p := &l.pages
	if head <= 0 || head > math.MaxUint16 || n > pageSize || l.skip+head > len(key) || len(l.heads) != len(l.ents) {
		p.off = true
		return nil
	}
	h := key[l.skip : l.skip+head]
	id, ok := p.ids[string(h)]
	if !ok {
		g := len(p.cur)
		if g >= maxPagedHeads || (g+1)*pageSize > l.budget/2 || g >= freePagedHeads && g >= len(l.ents)/pagedEntriesPerHead {
			p.off = true
			return nil
		}
		if p.ids == nil {
			p.ids = make(map[string]int32)
		}
		id = int32(g)
		p.ids[string(h)] = id
		p.heads = append(p.heads, append([]byte(nil), h...))
		p.cur = append(p.cur, headPage{})
	}
	pg := &p.cur[id]
	if pg.end-pg.off < n {
		l.room(pageSize)
		ci := len(l.chunks) - 1
		c := l.chunks[ci]
		*pg = headPage{chunk: ci, off: len(c), end: len(c) + pageSize}
		l.chunks[ci] = c[:len(c)+pageSize]
		l.used += pageSize
	}
	if !p.off && len(p.gids) == len(l.ents) {
		p.gids = append(p.gids, id)
	} else {
		p.off = true
	}
	return pg
}

// groupsOf returns each entry's group and the groups' heads, when every
// entry was placed by page.
func (p *headPages) groupsOf(n int) (gids []int32, heads [][]byte, ok bool) {
	if p.off || len(p.gids) != n || n == 0 {
		return nil, nil, false
	}
	return p.gids, p.heads, true
}
