package manifest

// Data is the content of one manifest file, to Parse.
type Data struct {
	// Name names the file in messages and in Result.Files.
	Name  string
	Bytes []byte
	// Previous is the last version of the file that parsed, or nil. A
	// document with the same bytes as one of its documents is not decoded
	// again: its objects are Previous's, the same pointers (at a new
	// place in the file), so that a file of 100,000 objects with a few
	// edited costs those few to parse and to render (render.Incremental
	// compares objects by pointer).
	Previous *File
}

// File is one manifest file parsed: its objects of the kinds render reads,
// complete (namespace defaulted, Secret stringData merged), in document
// order, and the kinds it skipped. A File never changes once parsed, so
// that a caller (the files source) may keep it and Combine it again with
// other files: its objects go into every Snapshot made from it.
type File struct {
	Name string
	// Err is the file's first error in document order (a *DocumentError);
	// the objects are then those before it.
	Err     error
	objects []object
	skipped []string
	unread  []unreadIngress
	// docs are the documents that gave objects of our kinds and nothing
	// else, and namespace the default namespace they were completed with:
	// what the next Parse of the file may keep (Data.Previous).
	docs      []parsedDocument
	namespace string
}

// Objects returns how many objects of the kinds render reads the file has.
func (f *File) Objects() int { return len(f.objects) }

// Parse splits and decodes files, the documents of all of them at once on
// several goroutines; out[i] is files[i]. Objects without a namespace get
// o.DefaultNamespace (DefaultNamespace when ""). Duplicates are found by
// Combine, which sees every file. A document that files[i].Previous holds
// byte for byte keeps its objects (reuse.go).
func Parse(files []Data, o Options) []*File {
	ns := o.DefaultNamespace
	if ns == "" {
		ns = DefaultNamespace
	}
	perFile := make([][]document, len(files))
	sums := make([][]documentSum, len(files))
	_ = forEach(len(files), func(i int) error {
		perFile[i] = splitDocuments(files[i].Name, files[i].Bytes)
		sums[i] = documentSums(perFile[i])
		return nil
	})
	kept := make([][][]object, len(files))
	var docs []document
	for i, f := range files {
		kept[i] = keptObjects(f.Previous, ns, sums[i])
		for j, d := range perFile[i] {
			if kept[i][j] == nil {
				docs = append(docs, d)
			}
		}
	}
	decoded := decodeAll(newDecoder(), docs)
	out := make([]*File, len(files))
	for i, f := range files {
		parsed := parsedFile{docs: perFile[i], sums: sums[i], kept: kept[i]}
		parsed.decoded, decoded = decoded[:parsed.toDecode()], decoded[parsed.toDecode():]
		out[i] = completeFile(f.Name, parsed, ns)
	}
	return out
}

// parsedFile is a file's documents, each with its sum and either the
// objects kept from the file's last version or, in order, its decoded
// content.
type parsedFile struct {
	docs    []document
	sums    []documentSum
	kept    [][]object
	decoded []decoded
}

// toDecode is the number of documents of p that were not kept.
func (p parsedFile) toDecode() int {
	n := 0
	for _, k := range p.kept {
		if k == nil {
			n++
		}
	}
	return n
}

// completeFile gathers a file's documents, up to the first error.
func completeFile(name string, p parsedFile, defaultNamespace string) *File {
	n := 0
	for _, k := range p.kept {
		n += len(k)
	}
	for _, d := range p.decoded {
		n += len(d.objects)
	}
	f := &File{Name: name, objects: make([]object, 0, n), namespace: defaultNamespace}
	next := 0
	for j, doc := range p.docs {
		first := len(f.objects)
		if k := p.kept[j]; k != nil {
			for _, o := range k {
				o.origin = movedOrigin(o.origin, doc.origin)
				f.objects = append(f.objects, o)
			}
			f.docs = append(f.docs, parsedDocument{sum: p.sums[j], first: first, count: len(k)})
			continue
		}
		d := p.decoded[next]
		next++
		if d.err != nil {
			f.Err = d.err
			return f
		}
		f.skipped = append(f.skipped, d.skipped...)
		for _, u := range d.unread {
			if u.namespace == "" {
				u.namespace = defaultNamespace
			}
			if u.name == "" {
				u.name = "(no name)"
			}
			f.unread = append(f.unread, u)
		}
		for _, o := range d.objects {
			obj, err := complete(o, defaultNamespace)
			if err != nil {
				f.Err = err
				return f
			}
			f.objects = append(f.objects, obj)
		}
		if len(d.objects) > 0 && len(d.skipped) == 0 {
			f.docs = append(f.docs, parsedDocument{sum: p.sums[j], first: first, count: len(d.objects)})
		}
	}
	return f
}
