package genmanifests

// pyRandom is CPython's random.Random (the Mersenne Twister MT19937 with
// CPython's seeding and its random, getrandbits, randint and choice), so
// that a seed gives the same cluster as the Python generator this package
// replaces. Only what the generator calls is here.
type pyRandom struct {
	mt  [mtN]uint32
	idx int
}

const (
	mtN         = 624
	mtM         = 397
	mtMatrixA   = 0x9908b0df
	mtUpperMask = 0x80000000
	mtLowerMask = 0x7fffffff
)

// newPyRandom seeds as random.Random(seed) does for an int: the 32-bit
// words of |seed|, least significant first, through init_by_array.
func newPyRandom(seed int64) *pyRandom {
	n := uint64(seed)
	if seed < 0 {
		n = uint64(-seed) // -MinInt64 wraps to itself: its magnitude as uint64
	}
	key := []uint32{uint32(n)}
	if hi := uint32(n >> 32); hi != 0 {
		key = append(key, hi)
	}
	r := &pyRandom{}
	r.initByArray(key)
	return r
}

func (r *pyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < mtN; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.idx = mtN
}

func (r *pyRandom) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	for k := max(mtN, len(key)); k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := mtN - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

// uint32 is genrand_uint32.
func (r *pyRandom) uint32() uint32 {
	if r.idx >= mtN {
		for k := 0; k < mtN; k++ {
			y := (r.mt[k] & mtUpperMask) | (r.mt[(k+1)%mtN] & mtLowerMask)
			v := r.mt[(k+mtM)%mtN] ^ (y >> 1)
			if y&1 != 0 {
				v ^= mtMatrixA
			}
			r.mt[k] = v
		}
		r.idx = 0
	}
	y := r.mt[r.idx]
	r.idx++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// random is random.random(): a float in [0, 1) with 53 random bits.
func (r *pyRandom) random() float64 {
	a, b := r.uint32()>>5, r.uint32()>>6
	return (float64(a)*67108864.0 + float64(b)) * (1.0 / 9007199254740992.0)
}

// below is random._randbelow_with_getrandbits(n) for 0 < n < 2^32:
// getrandbits(n.bit_length()) until the draw is below n.
func (r *pyRandom) below(n int) int {
	k := 0
	for v := n; v > 0; v >>= 1 {
		k++
	}
	for {
		if v := int(r.uint32() >> (32 - k)); v < n {
			return v
		}
	}
}

// randint is random.randint(a, b): a ≤ n ≤ b.
func (r *pyRandom) randint(a, b int) int { return a + r.below(b-a+1) }

// choice is random.choice(seq).
func (r *pyRandom) choice(seq []string) string { return seq[r.below(len(seq))] }
