//! Average linkage: parts joined into clusters, the two closest first,
//! by the mean of the chances between their parts (`pieces`).

/// Clusters of parts joined by average linkage on the sums of chances
/// between them (a cluster lives in the slot of its first part).
pub struct Linkage {
    sum: Vec<Vec<f64>>,
    /// Each slot's parts (empty once joined into another).
    pub members: Vec<Vec<usize>>,
    alive: Vec<bool>,
    /// How many clusters are left.
    pub left: usize,
}

impl Linkage {
    pub fn new(sum: Vec<Vec<f64>>) -> Linkage {
        let n = sum.len();
        Linkage {
            sum,
            members: (0..n).map(|p| vec![p]).collect(),
            alive: vec![true; n],
            left: n,
        }
    }

    pub fn average(&self, x: usize, y: usize) -> f64 {
        self.sum[x][y] / (self.members[x].len() * self.members[y].len()) as f64
    }

    pub fn living(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.alive.len()).filter(|&x| self.alive[x])
    }

    /// The two closest clusters; ties go to the lowest slots, so the
    /// result is stable.
    pub fn closest(&self) -> Option<(f64, usize, usize)> {
        let mut best: Option<(f64, usize, usize)> = None;
        for x in self.living() {
            for y in self.living().filter(|&y| y > x) {
                let average = self.average(x, y);
                if best.is_none_or(|(v, _, _)| average > v + 1e-12) {
                    best = Some((average, x, y));
                }
            }
        }
        best
    }

    /// Moves `y`'s parts into `x`.
    pub fn join(&mut self, x: usize, y: usize) {
        self.left -= 1;
        for z in 0..self.alive.len() {
            if self.alive[z] && z != x && z != y {
                self.sum[x][z] += self.sum[y][z];
                self.sum[z][x] = self.sum[x][z];
            }
        }
        self.alive[y] = false;
        let moved = std::mem::take(&mut self.members[y]);
        self.members[x].extend(moved);
    }
}
