package exec

import (
	"math"
	"sort"

	"github.com/golang/geo/s1"
	"github.com/golang/geo/s2"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/geo"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/query/plan"
)

// GeoNear is GEO_NEAR_2DSPHERE: it returns the documents of a $near or
// $nearSphere in increasing distance without sorting the collection, as
// mongod's GeoNear2DSphere stage does. It searches growing annuli around
// the query point: for each, one IXSCAN over the cells that cover the
// annulus (minus those inside the previous one) under a FETCH that
// applies the filter; the documents whose distance falls in the annulus
// are sorted and returned before the next annulus is searched. An annulus
// that yields few documents doubles the width of the next.
type GeoNear struct {
	base
	env  Env
	node *plan.Node
	near *query.NearNode
	gi   int // position of the geo field in the index
	// inner and outer bound the current annulus (radians); minR, maxR the
	// query's bounds.
	inner, outer, width, minR, maxR float64
	started, done                   bool
	cur                             Stage
	buf                             []nearResult
	next                            int
	// intervals are the annuli searched, for explain's searchIntervals.
	intervals []nearInterval
	m         Member
	// filter and filterDoc are what each annulus's FETCH applies: the
	// query without its near predicate.
	filter    *query.Filter
	filterDoc bsoncore.Document
	// is2D is set for GEO_NEAR_2D: geohash ranges of the annulus's
	// bounding box, and planar distances unless the query is spherical.
	is2D bool
}

type nearInterval struct {
	min, max      float64
	inclusive     bool
	buffered, ret int64
}

type nearResult struct {
	rid  uint64
	doc  bsoncore.Document
	dist float64
}

// initialWidth is the first annulus's width: about 100 m.
const initialWidth = 100.0 / geo.EarthRadiusMeters

// NewGeoNear returns a GEO_NEAR_2DSPHERE over n.Index for n.Near.
func NewGeoNear(n *plan.Node, env Env) *GeoNear {
	s := &GeoNear{env: env, node: n, near: n.Near}
	s.timing = env.Timing
	s.filter, s.filterDoc = env.Filter, env.FilterDoc
	if len(n.Dropped) > 0 {
		s.filter, s.filterDoc = n.Residual, nil
		if s.filter != nil {
			s.filterDoc = s.filter.Serialize()
		}
	}
	for i, f := range n.Index.Fields {
		if f.Geo != "" {
			s.gi = i
		}
	}
	s.minR, s.maxR = n.Near.MinRadians(), math.Min(n.Near.MaxRadians(), math.Pi)
	s.inner, s.width = s.minR, initialWidth
	if n.Stage == plan.StageGeoNear2D {
		s.is2D = true
		if !n.Near.Spherical {
			// Planar units; the farthest two points of the index's
			// square are (max - min)·√2 apart; the first annulus is 16
			// cells wide.
			g := n.Index.Grid()
			s.minR, s.maxR = n.Near.MinDistance, math.Min(n.Near.MaxDistance, (g.Max-g.Min)*math.Sqrt2)
			s.inner, s.width = s.minR, g.CellSize()*16
		}
	}
	return s
}

// Name implements Stage.
func (s *GeoNear) Name() string { return s.node.Stage }

// Work implements Stage.
func (s *GeoNear) Work() (State, *Member, error) {
	start := s.now()
	st, m, err := s.work()
	s.record(st, start)
	return st, m, err
}

func (s *GeoNear) work() (State, *Member, error) {
	if s.cur == nil && s.next < len(s.buf) {
		r := s.buf[s.next]
		s.next++
		s.intervals[len(s.intervals)-1].ret++
		s.m = Member{RID: r.rid, Doc: r.doc, Pos: -1}
		return Advanced, &s.m, nil
	}
	if s.done {
		return EOF, nil, nil
	}
	if s.cur == nil {
		if s.started && s.inner >= s.maxR {
			s.done = true
			return EOF, nil, nil
		}
		s.startAnnulus()
	}
	st, m, err := s.cur.Work()
	if err != nil {
		return EOF, nil, err
	}
	switch st {
	case Advanced:
		d := s.distance(m.Doc)
		last := s.outer >= s.maxR
		// A document's distance puts it in exactly one annulus, so none
		// is returned twice (the scan dedups within an annulus).
		if d >= s.inner && (d < s.outer || (last && d <= s.outer)) && d >= s.minR {
			s.intervals[len(s.intervals)-1].buffered++
			s.buf = append(s.buf, nearResult{rid: m.RID, doc: append(bsoncore.Document(nil), m.Doc...), dist: d})
		}
		return NeedTime, nil, nil
	case EOF:
		s.cur.Close()
		s.cur = nil
		found := len(s.buf)
		sort.SliceStable(s.buf, func(i, j int) bool { return s.buf[i].dist < s.buf[j].dist })
		s.inner = s.outer
		if found < 16 {
			s.width *= 2
		}
		if s.inner >= s.maxR {
			s.done = len(s.buf) == 0
		}
		return NeedTime, nil, nil
	}
	return st, nil, nil
}

// startAnnulus opens the scan of the next annulus [inner, outer).
func (s *GeoNear) startAnnulus() {
	s.started = true
	s.buf, s.next = s.buf[:0], 0
	// Results of earlier annuli were all returned; only the ones of this
	// annulus are kept from now on.
	s.outer = math.Min(s.inner+s.width, s.maxR)
	s.intervals = append(s.intervals, nearInterval{min: s.inner, max: s.outer, inclusive: s.outer >= s.maxR})
	if s.is2D {
		s.startAnnulus2D()
		return
	}
	outerCap := s2.CapFromCenterAngle(s.near.Center, s1.Angle(s.outer))
	if s.outer >= math.Pi {
		outerCap = s2.FullCap()
	}
	innerCap := s2.CapFromCenterAngle(s.near.Center, s1.Angle(s.inner))
	ranges := geo.AnnulusRanges(outerCap, innerCap, s.inner <= 0)
	bounds := append([]plan.FieldBounds(nil), s.node.Bounds...)
	bounds[s.gi].OIL = plan.RangesOIL(ranges)
	s.open(bounds)
}

// startAnnulus2D scans the geohash cells of the bounding box of the
// outer circle (planar, or on the sphere for $nearSphere).
func (s *GeoNear) startAnnulus2D() {
	c := s.near.Flat
	var x0, y0, x1, y1 float64
	if s.near.Spherical {
		x0, y0, x1, y1 = geo.SphereBox(c, s.outer)
	} else {
		x0, y0, x1, y1 = c.X-s.outer, c.Y-s.outer, c.X+s.outer, c.Y+s.outer
	}
	bounds := append([]plan.FieldBounds(nil), s.node.Bounds...)
	bounds[s.gi].OIL = plan.HashRangesOIL(s.node.Index.Grid().BoxRanges(x0, y0, x1, y1))
	s.open(bounds)
}

func (s *GeoNear) open(bounds []plan.FieldBounds) {
	scan := NewIxScan(s.env.Reader, s.node.Index, bounds, 1, true, s.env.Timing)
	fetch := NewFetch(scan, s.env.Reader, s.env.CollID, s.filter, s.filterDoc, s.env.Timing)
	fetch.clustered = s.env.Clustered
	s.cur = fetch
	s.children = append(s.children, fetch)
}

// distance is a document's distance to the query point in the stage's
// units (radians, or planar units for a flat 2d $near).
func (s *GeoNear) distance(doc bsoncore.Document) float64 {
	if s.is2D && !s.near.Spherical {
		d, _ := query.NearestFlat(s.near.Flat, doc, s.near.Path)
		return d
	}
	return DocDistance(s.near.Center, doc, s.near.Path)
}

// Close implements Stage.
func (s *GeoNear) Close() {
	s.closeChildren()
	s.cur = nil
}

func (s *GeoNear) explain(b *bsoncore.DocumentBuilder, execStats bool) {
	b.AppendDocument("keyPattern", s.node.Index.KeyPattern).
		AppendString("indexName", s.node.Index.Name)
	if !s.is2D {
		b.AppendInt32("indexVersion", 2)
	}
	if execStats {
		b.AppendArray("searchIntervals", s.intervalsDoc())
	}
}

// intervalsDoc renders the annuli searched as mongod's searchIntervals,
// in the query's distance units.
func (s *GeoNear) intervalsDoc() bsoncore.Array {
	unit := 1.0
	if s.near.Spherical && !s.near.Radians {
		unit = geo.EarthRadiusMeters
	}
	ab := bsoncore.NewArrayBuilder()
	for _, iv := range s.intervals {
		ab.AppendDocument(bsoncore.NewDocumentBuilder().
			AppendDouble("minDistance", iv.min*unit).
			AppendDouble("maxDistance", iv.max*unit).
			AppendBoolean("maxInclusive", iv.inclusive).
			AppendInt64("nBuffered", iv.buffered).
			AppendInt64("nReturned", iv.ret).Build())
	}
	return ab.Build()
}

// DocDistance returns the angle between center and the nearest geometry
// of doc at path (+Inf when there is none).
func DocDistance(center s2.Point, doc bsoncore.Document, path string) float64 {
	d, _ := query.NearestGeometry(center, doc, path)
	return d
}
