//! Where each value of a JSON text is, by byte range, so one value can be
//! replaced leaving every other byte of the file as it was (serde_json
//! keeps no positions). Only for text serde_json already accepted; depth
//! is bounded like the YAML readers' (64 levels beyond what Taskmaster uses).

/// A value and its byte range; objects and arrays with their members.
#[derive(Debug)]
pub(crate) struct Node {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

#[derive(Debug)]
pub(crate) enum Kind {
    /// Members with the byte offset of their key's opening quote.
    Object(Vec<(String, usize, Node)>),
    Array(Vec<Node>),
    Scalar,
}

impl Node {
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            Kind::Object(members) => members.iter().find(|(k, _, _)| k == key).map(|(_, _, n)| n),
            _ => None,
        }
    }

    /// The key's offset in an object, for a member.
    pub fn key_at(&self, key: &str) -> Option<usize> {
        match &self.kind {
            Kind::Object(members) => members.iter().find(|(k, _, _)| k == key).map(|(_, at, _)| *at),
            _ => None,
        }
    }

    pub fn items(&self) -> &[Node] {
        match &self.kind {
            Kind::Array(items) => items,
            _ => &[],
        }
    }
}

const MAX_DEPTH: usize = 128;

/// The node tree of `text`, or `None` when it is not JSON this reader follows.
pub(crate) fn scan(text: &str) -> Option<Node> {
    let mut p = Scanner {
        b: text.as_bytes(),
        i: 0,
    };
    p.ws();
    let node = p.value(0)?;
    p.ws();
    (p.i == p.b.len()).then_some(node)
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scanner<'_> {
    /// After a member or an item: past a `,` (false) or the closing
    /// bracket (true); anything else is not JSON.
    fn after_item(&mut self, close: u8) -> Option<bool> {
        let b = *self.b.get(self.i)?;
        self.i += 1;
        match b {
            b',' => Some(false),
            b if b == close => Some(true),
            _ => None,
        }
    }

    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        let start = self.i;
        match *self.b.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut members = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        let key_at = self.i;
                        let key = self.string()?;
                        self.ws();
                        if self.b.get(self.i) != Some(&b':') {
                            return None;
                        }
                        self.i += 1;
                        self.ws();
                        let v = self.value(depth + 1)?;
                        members.push((key, key_at, v));
                        self.ws();
                        if self.after_item(b'}')? {
                            break;
                        }
                    }
                }
                Some(Node {
                    start,
                    end: self.i,
                    kind: Kind::Object(members),
                })
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b']') {
                    self.i += 1;
                } else {
                    loop {
                        self.ws();
                        items.push(self.value(depth + 1)?);
                        self.ws();
                        if self.after_item(b']')? {
                            break;
                        }
                    }
                }
                Some(Node {
                    start,
                    end: self.i,
                    kind: Kind::Array(items),
                })
            }
            b'"' => {
                self.string()?;
                Some(Node {
                    start,
                    end: self.i,
                    kind: Kind::Scalar,
                })
            }
            _ => {
                while self.i < self.b.len()
                    && !matches!(self.b[self.i], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                {
                    self.i += 1;
                }
                (self.i > start).then_some(Node {
                    start,
                    end: self.i,
                    kind: Kind::Scalar,
                })
            }
        }
    }

    /// A string at the cursor, decoded (escapes through serde_json).
    fn string(&mut self) -> Option<String> {
        if self.b.get(self.i) != Some(&b'"') {
            return None;
        }
        let start = self.i;
        self.i += 1;
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    let raw = std::str::from_utf8(&self.b[start..self.i]).ok()?;
                    return serde_json::from_str(raw).ok();
                }
                _ => self.i += 1,
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_of_members() {
        let text = "{\n  \"a\": [1, {\"s\": \"x\\\"y\"}],\n  \"b\": true\n}\n";
        let root = scan(text).unwrap();
        let s = &root.get("a").unwrap().items()[1].get("s").unwrap();
        assert_eq!(&text[s.start..s.end], "\"x\\\"y\"");
        assert_eq!(&text[root.get("b").unwrap().start..root.get("b").unwrap().end], "true");
        assert_eq!(root.key_at("b"), text.find("\"b\""));
        assert!(scan("{\"a\": }").is_none());
        assert!(scan(&"[".repeat(1000)).is_none());
    }
}
