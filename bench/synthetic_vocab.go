package bench

// Vocabulary of the synthetic bank: a few hundred names, places,
// organisations, verbs and objects, so a full-text index sees a realistic
// spread of terms and entities. Changing a list changes every generated
// bank: the generator's output is part of its contract for a given seed.

var synFirstNames = []string{
	"Alice", "Bob", "Carla", "David", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas",
	"Keiko", "Liam", "Maya", "Nikolai", "Olga", "Pedro", "Quinn", "Rosa", "Samir", "Tessa",
	"Umar", "Vera", "Wen", "Ximena", "Yusuf", "Zoe", "Amara", "Bruno", "Chloe", "Dmitri",
	"Esther", "Felix", "Gianna", "Hugo", "Isla", "Jamal", "Kai", "Lucia", "Mateo", "Nadia",
	"Oscar", "Priya", "Rafael", "Sofia", "Tomas", "Uma", "Viktor", "Willa", "Yara", "Zane",
	"Anika", "Bastian", "Camille", "Diego", "Eva", "Fatima", "Gabriel", "Hana", "Ivan", "Julia",
	"Kofi", "Leila", "Marco", "Noor", "Otto", "Paula", "Rohan", "Sara", "Theo", "Valentina",
	"Arjun", "Beatriz", "Cyrus", "Daria", "Emil", "Freya", "Goran", "Helga", "Idris", "Jana",
	"Kenji", "Lotte", "Miguel", "Nina", "Omar", "Pia", "Reza", "Signe", "Tariq", "Ursula",
	"Vikram", "Wanda", "Xavier", "Yoko", "Zainab", "Aurelio", "Brigitte", "Caspar", "Dalia", "Ezra",
}

var synLastNames = []string{
	"Kowalski", "Silva", "Nakamura", "Okafor", "Larsen", "Moreau", "Rossi", "Novak", "Fischer", "Haddad",
	"Ivanova", "Jansen", "Kaur", "Lindqvist", "Mendes", "Nguyen", "Oliveira", "Petrov", "Quintero", "Rahman",
	"Schmidt", "Tanaka", "Uddin", "Varga", "Weber", "Yilmaz", "Zhang", "Almeida", "Becker", "Costa",
	"Dubois", "Eriksen", "Ferreira", "Garcia", "Hoffmann", "Iqbal", "Jovanovic", "Kim", "Lopez", "Muller",
	"Nielsen", "Ortiz", "Park", "Romano", "Santos", "Torres", "Urbanski", "Vasquez", "Wagner", "Xu",
	"Yamamoto", "Ziegler", "Andersson", "Bianchi", "Chen", "Dimitrov", "Esposito", "Fontaine", "Gruber", "Horvat",
	"Ibrahim", "Jakobsen", "Keller", "Lambert", "Mazur", "Nowak", "Osei", "Popescu", "Reyes", "Sato",
	"Tran", "Ueda", "Virtanen", "Wojcik", "Yamada", "Zamora", "Brennan", "Castillo", "Delgado", "Eklund",
}

var synCities = []string{
	"Lisbon", "Porto", "Madrid", "Barcelona", "Valencia", "Seville", "Paris", "Lyon", "Marseille", "Bordeaux",
	"Berlin", "Munich", "Hamburg", "Cologne", "Vienna", "Zurich", "Geneva", "Milan", "Rome", "Naples",
	"Florence", "Turin", "Amsterdam", "Rotterdam", "Utrecht", "Brussels", "Antwerp", "Copenhagen", "Aarhus", "Stockholm",
	"Gothenburg", "Oslo", "Bergen", "Helsinki", "Tallinn", "Riga", "Vilnius", "Warsaw", "Krakow", "Prague",
	"Brno", "Budapest", "Bratislava", "Ljubljana", "Zagreb", "Belgrade", "Sofia", "Bucharest", "Athens", "Thessaloniki",
	"Istanbul", "Izmir", "Dublin", "Cork", "Edinburgh", "Glasgow", "Manchester", "Bristol", "London", "Reykjavik",
	"Toronto", "Montreal", "Vancouver", "Boston", "Chicago", "Denver", "Seattle", "Austin", "Portland", "Atlanta",
	"Mexico City", "Bogota", "Lima", "Santiago", "Buenos Aires", "Montevideo", "Sao Paulo", "Recife", "Nairobi", "Accra",
	"Lagos", "Cairo", "Marrakesh", "Cape Town", "Tokyo", "Osaka", "Kyoto", "Seoul", "Busan", "Taipei",
	"Singapore", "Bangkok", "Hanoi", "Manila", "Jakarta", "Mumbai", "Bangalore", "Dubai", "Sydney", "Auckland",
}

var synOrgs = []string{
	"Northwind", "Contoso", "Globex", "Initech", "Umbrella Labs", "Hooli", "Vandelay Industries", "Stark Analytics",
	"Wayne Logistics", "Acme Robotics", "Soylent Foods", "Tyrell Systems", "Cyberdyne", "Aperture Science",
	"Blue Harbor Bank", "Greenleaf Energy", "Redwood Health", "Silverline Media", "Ironclad Security", "Bright Path Schools",
	"Oakridge Hospital", "Lighthouse Ventures", "Copperfield Studios", "Nimbus Cloud", "Quantum Bakery", "Riverstone Law",
	"Sunrise Travel", "Tidewater Shipping", "Urban Roots", "Vertex Motors", "Willow Books", "Yellowfin Design",
	"Zephyr Airlines", "Atlas Architects", "Beacon Pharma", "Cobalt Games", "Delta Dental", "Evergreen Farms",
	"Falcon Drones", "Granite Insurance", "Helix Genomics", "Indigo Telecom", "Juniper Coffee", "Kestrel Capital",
	"Lumen Optics", "Meridian Hotels", "Nova Textiles", "Orbit Satellites", "Pinecone Software", "Quartz Jewelry",
}

var synActivities = []string{
	"hiking", "kayaking", "rock climbing", "surfing", "cycling", "running", "swimming", "sailing", "skiing", "snowboarding",
	"birdwatching", "photography", "painting", "pottery", "knitting", "woodworking", "gardening", "baking", "fishing", "camping",
	"yoga", "chess", "salsa dancing", "board games", "stargazing", "geocaching", "volunteering", "journaling", "calligraphy", "archery",
	"fencing", "tennis", "badminton", "bouldering", "paddleboarding", "horse riding", "scuba diving", "trail running", "tai chi", "karaoke",
}

var synObjects = []string{
	"bicycle", "laptop", "camera", "guitar", "watch", "backpack", "umbrella", "scarf", "teapot", "lamp",
	"bookshelf", "telescope", "drone", "kettle", "notebook", "fountain pen", "phone", "tablet", "headphones", "sofa",
	"desk", "rug", "painting", "vase", "blender", "coffee grinder", "tent", "sleeping bag", "hammock", "kayak",
	"skateboard", "typewriter", "record player", "sewing machine", "microscope", "surfboard", "violin", "keyboard", "printer", "mirror",
	"jacket", "wallet", "passport", "suitcase", "bracelet", "necklace", "sunglasses", "helmet", "toolbox", "cookbook",
	"puzzle", "kite", "globe", "candle", "houseplant", "aquarium", "birdhouse", "clock", "rocking chair", "piano",
}

var synRoles = []string{
	"software engineer", "data analyst", "nurse", "teacher", "architect", "product manager", "chef", "pharmacist",
	"lawyer", "accountant", "designer", "pilot", "journalist", "photographer", "researcher", "electrician",
	"veterinarian", "dentist", "marketing lead", "sales director", "barista", "librarian", "physiotherapist", "translator",
	"carpenter", "mechanic", "consultant", "project coordinator", "copywriter", "recruiter",
}

var synFoods = []string{
	"peanuts", "shellfish", "gluten", "lactose", "eggs", "soy", "sesame", "strawberries", "kiwi", "mustard",
	"celery", "walnuts", "almonds", "cashews", "tomatoes",
}

var synDishes = []string{
	"paella", "lasagna", "ramen", "risotto", "tacos", "curry", "moussaka", "pierogi", "goulash", "pad thai",
	"shakshuka", "bibimbap", "ratatouille", "falafel", "jollof rice", "pho", "empanadas", "gnocchi", "biryani", "sushi",
	"dumplings", "pancakes", "lentil soup", "fish stew", "mushroom pie", "banana bread", "apple crumble", "cheesecake", "tiramisu", "baklava",
}

var synPets = []string{"dog", "cat", "rabbit", "parrot", "hamster", "tortoise", "ferret", "goldfish", "guinea pig", "greyhound"}

var synPetNames = []string{
	"Biscuit", "Pepper", "Luna", "Mochi", "Oreo", "Ziggy", "Waffles", "Nala", "Pixel", "Churro",
	"Maple", "Bruno", "Clover", "Tofu", "Noodle", "Juniper", "Olive", "Rocket", "Sushi", "Basil",
}

var synSubjects = []string{
	"marine biology", "architecture", "economics", "philosophy", "computer science", "medicine", "law", "linguistics",
	"art history", "astrophysics", "psychology", "nursing", "mechanical engineering", "music composition", "journalism",
	"urban planning", "chemistry", "statistics", "political science", "graphic design",
}

var synInstruments = []string{
	"piano", "violin", "cello", "guitar", "ukulele", "drums", "saxophone", "trumpet", "flute", "clarinet",
	"harp", "banjo", "accordion", "mandolin", "bass guitar",
}

var synDrinks = []string{
	"green tea", "espresso", "oat milk lattes", "black coffee", "chamomile tea", "sparkling water", "lemonade",
	"hot chocolate", "kombucha", "orange juice", "craft beer", "red wine", "mint tea", "matcha", "cold brew",
}

var synEvents = []string{
	"jazz festival", "book fair", "food market", "film festival", "marathon", "tech conference", "art biennale",
	"wine tasting", "comedy night", "design week", "street parade", "chess tournament", "science fair", "flower show", "opera premiere",
}

var synVenues = []string{
	"the old harbour", "the botanical garden", "the central station", "the riverside park", "the city library",
	"the climbing gym", "the farmers market", "the community centre", "the museum cafe", "the beach",
	"the lake", "the mountains", "the old town", "the university campus", "the stadium",
}

var synPast = []string{
	"yesterday", "last weekend", "last week", "two days ago", "last month", "on Monday", "on Friday evening",
	"last summer", "over the holidays", "this morning", "earlier today", "a few weeks ago",
}

var synFuture = []string{
	"tomorrow", "next weekend", "next week", "next month", "on Saturday", "after the holidays",
	"in the spring", "later this year", "on Thursday", "next summer",
}

var synFeelings = []string{
	"excited", "nervous", "exhausted", "thrilled", "worried", "relieved", "proud", "frustrated", "curious", "grateful",
}

var synFillers = []string{
	"Sounds great!", "Haha, that is so typical.", "Wow, I did not know that.", "Let me check my calendar.",
	"That reminds me of something.", "Oh no, really?", "I am so happy for them.", "We should catch up soon.",
	"Can you send me the photos?", "Good to know, thanks.", "I will think about it.", "That sounds exhausting.",
}
