package memory

// About is everything a bank knows about one entity (seed 002's
// get_all_about): the entity, its newest active facts and its relations.
type About struct {
	Entity *Entity
	// Facts are active facts that mention the entity, newest first.
	Facts []*Fact
	// Relations are the entity's edges in both directions, current and
	// closed, oldest first.
	Relations []AboutRelation
}

// AboutRelation is one relation of an About with the names of its ends.
type AboutRelation struct {
	Relation    *Relation
	SubjectName string
	ObjectName  string
	// Current is true while the edge is open (no ExpiredAt).
	Current bool
}
