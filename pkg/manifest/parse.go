package manifest

// Data is the content of one manifest file, to Parse.
type Data struct {
	// Name names the file in messages and in Result.Files.
	Name  string
	Bytes []byte
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
}

// Objects returns how many objects of the kinds render reads the file has.
func (f *File) Objects() int { return len(f.objects) }

// Parse splits and decodes files, the documents of all of them at once on
// several goroutines; out[i] is files[i]. Objects without a namespace get
// o.DefaultNamespace (DefaultNamespace when ""). Duplicates are found by
// Combine, which sees every file.
func Parse(files []Data, o Options) []*File {
	ns := o.DefaultNamespace
	if ns == "" {
		ns = DefaultNamespace
	}
	perFile := make([][]document, len(files))
	_ = forEach(len(files), func(i int) error {
		perFile[i] = splitDocuments(files[i].Name, files[i].Bytes)
		return nil
	})
	n := 0
	for _, d := range perFile {
		n += len(d)
	}
	docs := make([]document, 0, n)
	for _, d := range perFile {
		docs = append(docs, d...)
	}
	decoded := decodeAll(newDecoder(), docs)
	out := make([]*File, len(files))
	for i, f := range files {
		out[i] = completeFile(f.Name, decoded[:len(perFile[i])], ns)
		decoded = decoded[len(perFile[i]):]
	}
	return out
}

// completeFile gathers a file's decoded documents, up to the first error.
func completeFile(name string, docs []decoded, defaultNamespace string) *File {
	n := 0
	for _, d := range docs {
		n += len(d.objects)
	}
	f := &File{Name: name, objects: make([]object, 0, n)}
	for _, d := range docs {
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
	}
	return f
}
