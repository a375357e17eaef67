"""A development set of user/assistant chats written for these tests (our own text).

Each chat is what an agent hands over: ``role`` + ``content``, no ``name``. ``gold`` lists
what a person reading the chat would note about the user (and the people they name), as
short phrases; ``never`` lists phrases no learned fact may state (the assistant's advice,
questions, old values that were replaced). The extractor's rules were written while looking
at this set, so its figures are development figures, not a held-out result.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Chat:
    turns: list[tuple[str, str]]
    gold: list[str]
    never: list[str] = field(default_factory=list)
    current: dict[str, str] = field(default_factory=dict)  # predicate -> the value to keep


CHATS: list[Chat] = [
    Chat(
        turns=[
            ("user", "Hi! I'm Priya, I work as a nurse at St. Mary's hospital in Leeds."),
            (
                "assistant",
                "Nice to meet you, Priya! Nursing is demanding work. How can I help today? "
                "Here are a few things I can do:\n\n- plan your week\n- suggest recipes\n"
                "- answer questions",
            ),
            ("user", "I'm vegetarian and allergic to penicillin, so keep that in mind."),
            (
                "assistant",
                "Got it. **Vegetarian** meals and no penicillin. Many people find that "
                "lentils are an excellent source of protein. Would you like some recipes?",
            ),
            ("user", "Sure. I usually cook on Sundays for the whole week."),
        ],
        gold=[
            "name Priya",
            "works as nurse",
            "works at St. Mary's hospital",
            "lives in Leeds",
            "vegetarian",
            "allergic to penicillin",
            "cooks on Sundays",
        ],
        never=["lentils", "recipes", "plan your week"],
    ),
    Chat(
        turns=[
            ("user", "I live in Munich at the moment, but I'm tired of the rent."),
            (
                "assistant",
                "Munich is one of the most expensive cities in Germany. Have you considered "
                "the suburbs? Places like Freising or Dachau are well connected by S-Bahn.",
            ),
            ("user", "Big news: I moved to Hamburg last week!"),
            (
                "assistant",
                "Congratulations on the move! Hamburg has a great harbour and lots of parks. "
                "How are you settling in?",
            ),
            ("user", "Pretty well. My budget for furniture is 2000 euros."),
        ],
        gold=["lives in Hamburg", "lives in Munich", "budget 2000 euros"],
        never=["Freising", "Dachau", "harbour", "settling"],
        current={"lives_in": "Hamburg"},
    ),
    Chat(
        turns=[
            ("user", "My husband Tom is diabetic, so I'm looking for low-sugar desserts."),
            (
                "assistant",
                "Here are some ideas:\n\n1. Greek yogurt with berries\n2. Dark chocolate "
                "(85% cocoa)\n3. Baked apples with cinnamon\n\nYou should always check "
                "with his doctor before changing his diet.",
            ),
            ("user", "Thanks. We have two kids, Maya and Leo, and they love baked apples."),
        ],
        gold=["husband Tom", "Tom diabetic", "child Maya", "child Leo", "2 children"],
        never=["yogurt", "chocolate", "doctor", "cinnamon"],
    ),
    Chat(
        turns=[
            ("user", "I prefer tea over coffee. Actually I don't drink coffee at all."),
            (
                "assistant",
                "Tea is a lovely choice. Green tea contains L-theanine, which promotes "
                "calm focus. Do you have a favourite kind?",
            ),
            ("user", "I also prefer quiet cafés where I can read."),
        ],
        gold=["prefers tea over coffee", "does not drink coffee", "prefers quiet cafés"],
        never=["theanine", "favourite kind"],
    ),
    Chat(
        turns=[
            ("user", "I climb at the bouldering gym on Saturdays and run every morning."),
            (
                "assistant",
                "That's a great routine! Climbing builds grip strength while running builds "
                "endurance. Make sure you rest at least one day a week.",
            ),
            ("user", "I have a dog named Biscuit who comes on the runs with me."),
        ],
        gold=["climbs at the bouldering gym on Saturdays", "runs every morning", "dog Biscuit"],
        never=["grip strength", "rest at least"],
    ),
    Chat(
        turns=[
            ("user", "What's a good laptop for programming?"),
            (
                "assistant",
                "It depends on your needs. What operating system are you running? For most "
                "developers, 16 GB of RAM is the minimum. The MacBook Air is popular.",
            ),
            ("user", "I'm a software engineer at Siemens and I use Linux."),
            (
                "assistant",
                "Then a ThinkPad X1 Carbon or a Framework laptop would suit you well. Both "
                "have excellent Linux support.",
            ),
        ],
        gold=["works as software engineer", "works at Siemens", "uses Linux"],
        never=["MacBook", "ThinkPad", "Framework", "operating system", "RAM"],
    ),
    Chat(
        turns=[
            ("user", "Can you recommend birdwatching gear? I just got into birding."),
            (
                "assistant",
                "Binoculars are an excellent tool for getting a closer look at birds. An "
                "8x42 pair is a good start. A field guide helps you identify species. Would "
                "you like recommendations for your region?",
            ),
            ("user", "Yes please, I live in Vancouver."),
        ],
        gold=["likes birding", "lives in Vancouver"],
        never=["Binoculars", "field guide", "8x42"],
    ),
    Chat(
        turns=[
            ("user", "I no longer eat meat. I stopped last month after watching a documentary."),
            (
                "assistant",
                "That's a big change! Plant-based diets can be very healthy when they are "
                "balanced. Remember to get enough B12 and iron.",
            ),
            ("user", "I'm also lactose intolerant, which makes cheese tricky."),
        ],
        gold=["no longer eats meat", "lactose intolerant"],
        never=["B12", "iron", "documentary"],
    ),
    Chat(
        turns=[
            ("user", "I'm flying to Lisbon on May 3rd for a conference."),
            (
                "assistant",
                "Lisbon in May is beautiful. The Alfama district is worth a walk, and you "
                "should try pastéis de nata. Do you need help with a packing list?",
            ),
            ("user", "Not yet. I'm 34 and this is my first work trip abroad."),
        ],
        gold=["flying to Lisbon on May 3rd", "age 34"],
        never=["Alfama", "pastéis", "packing list"],
    ),
    Chat(
        turns=[
            ("user", "hello"),
            ("assistant", "Hello! How can I help you today?"),
            ("user", "just bored lol"),
            (
                "assistant",
                "Happens to everyone! Want a fun fact? Octopuses have three hearts.",
            ),
            ("user", "haha cool"),
        ],
        gold=[],
        never=["Octopuses", "hearts", "bored"],
    ),
    Chat(
        turns=[
            ("user", "I have 3 cats and I'm thinking about getting a fourth."),
            (
                "assistant",
                "Cats are wonderful companions. Before adopting another, consider space, "
                "litter boxes (one per cat plus one) and how your current cats get along.",
            ),
            (
                "user",
                "Maybe I'll adopt a kitten next spring. My cats are called Luna, Milo and Pip.",
            ),
        ],
        gold=["3 cats", "cat Luna", "cat Milo", "cat Pip"],
        never=["kitten", "litter", "fourth"],
    ),
    Chat(
        turns=[
            ("user", "I'm learning Spanish and practice for 20 minutes every day."),
            (
                "assistant",
                "Consistency is key with languages. Apps like Duolingo help, but speaking "
                "with natives is best. ¿Quieres practicar un poco conmigo?",
            ),
            ("user", "Sí, pero despacio. I love Latin music too."),
        ],
        gold=["learning Spanish", "practices 20 minutes every day", "loves Latin music"],
        never=["Duolingo", "natives", "practicar"],
    ),
    Chat(
        turns=[
            ("user", "My daughter Emma starts university in September."),
            (
                "assistant",
                "What an exciting time! Here's a checklist:\n\n* bedding and towels\n* a "
                "laptop\n* kitchen basics\n\nIs she moving away from home?",
            ),
            ("user", "Yes, to Edinburgh. She's studying medicine."),
        ],
        gold=["daughter Emma", "Emma starts university in September"],
        never=["bedding", "towels", "checklist", "laptop"],
    ),
    Chat(
        turns=[
            ("user", "I work at Deloitte as an accountant, but I'm quitting next month."),
            (
                "assistant",
                "Leaving a job is a big decision. Have you lined up something new? It helps "
                "to keep your network warm.",
            ),
            ("user", "I got a new job as a data analyst at Spotify. I start on June 1st."),
        ],
        gold=[
            "works at Deloitte",
            "works as accountant",
            "works as data analyst",
            "works at Spotify",
        ],
        never=["network"],
        current={"works_at": "Spotify"},
    ),
    Chat(
        turns=[
            ("user", "I hate running but I enjoy swimming and cycling."),
            (
                "assistant",
                "Swimming and cycling are both low-impact, which is great for your joints. "
                "You could try a triathlon relay team where someone else runs!",
            ),
        ],
        gold=["hates running", "enjoys swimming", "enjoys cycling"],
        never=["triathlon", "joints"],
    ),
    Chat(
        turns=[
            (
                "user",
                "Here's my script, it crashes:\n```python\nI = 3\nmy_list = [1, 2]\n"
                "print(my_list[I])\n```\nI'm using Python 3.12 on Windows.",
            ),
            (
                "assistant",
                "The error is an `IndexError`: `my_list` has two items, so index 3 is out "
                "of range. Use `len(my_list)` to check the bounds first:\n\n```python\nif I "
                "< len(my_list):\n    print(my_list[I])\n```",
            ),
            ("user", "Ah thanks, that fixed it."),
        ],
        gold=["uses Python 3.12", "uses Windows"],
        never=["IndexError", "my_list", "bounds"],
    ),
    Chat(
        turns=[
            ("user", "I'm allergic to peanuts and shellfish. Could you plan a dinner menu?"),
            (
                "assistant",
                "Of course! Here's a menu:\n\n**Starter:** tomato bruschetta\n**Main:** "
                "herb-roasted chicken with potatoes\n**Dessert:** lemon sorbet\n\nNone of "
                "these contain peanuts or shellfish.",
            ),
            ("user", "Perfect, though I don't eat chicken. I'm pescatarian."),
        ],
        gold=[
            "allergic to peanuts",
            "allergic to shellfish",
            "does not eat chicken",
            "pescatarian",
        ],
        never=["bruschetta", "sorbet", "potatoes"],
    ),
    Chat(
        turns=[
            ("user", "I drive a 2015 Honda Civic and it's making a weird noise."),
            (
                "assistant",
                "A grinding noise when braking usually means worn brake pads. A squeal on "
                "start-up can be the serpentine belt. When does the noise happen?",
            ),
            ("user", "Only when I brake. I'm taking it to the garage on Friday."),
        ],
        gold=["drives a 2015 Honda Civic", "taking car to the garage on Friday"],
        never=["brake pads", "serpentine"],
    ),
    Chat(
        turns=[
            ("user", "My mom lives in Porto and my brother Carlos is a chef in London."),
            (
                "assistant",
                "Sounds like a well-travelled family! Porto is famous for its port wine "
                "cellars along the Douro river.",
            ),
        ],
        gold=["mother lives in Porto", "brother Carlos", "Carlos chef", "Carlos London"],
        never=["port wine", "Douro"],
    ),
    Chat(
        turns=[
            ("user", "I'm 5'9\" and weigh 80 kg. I want to lose 5 kg before summer."),
            (
                "assistant",
                "A realistic goal is 0.5 kg per week. Focus on protein, vegetables and a "
                "modest calorie deficit. Do you track your meals?",
            ),
            ("user", "Not really. I go to the gym twice a week."),
        ],
        gold=["weighs 80 kg", "height 5'9\"", "goes to the gym twice a week"],
        never=["0.5 kg", "calorie", "protein"],
    ),
    Chat(
        turns=[
            ("user", "I'm a teacher. I teach math at a high school in Austin."),
            (
                "assistant",
                "Teaching math is so valuable. What grade do you teach? I can suggest "
                "activities that make algebra more engaging.",
            ),
            ("user", "Tenth grade mostly. Oh and I play the cello in a community orchestra."),
        ],
        gold=["works as teacher", "teaches math", "lives in Austin", "plays the cello"],
        never=["algebra", "activities"],
    ),
    Chat(
        turns=[
            ("user", "Please book a table for two at Luigi's on Friday at 7pm."),
            (
                "assistant",
                "I've booked your table for two at Luigi's on Friday at 7pm. You'll get a "
                "confirmation email shortly.",
            ),
            ("user", "Great, it's our anniversary."),
        ],
        gold=["table at Luigi's on Friday"],
        never=["confirmation email"],
    ),
    Chat(
        turns=[
            ("user", "I've been feeling stressed lately. Work is a lot."),
            (
                "assistant",
                "I'm sorry to hear that. Here are some things that help many people:\n\n"
                "1. Short walks during breaks\n2. Breathing exercises\n3. Setting "
                "boundaries on after-hours email\n\nWould any of these work for you?",
            ),
            ("user", "I already meditate every evening, it helps a bit."),
        ],
        gold=["meditates every evening"],
        never=["walks", "Breathing", "boundaries"],
    ),
    Chat(
        turns=[
            ("user", "We moved from Boston to Denver two years ago. I love the mountains here."),
            (
                "assistant",
                "Denver is a great base for the Rockies. Have you been skiing at Vail or "
                "Breckenridge? Both are about two hours away.",
            ),
            ("user", "Not yet, I don't ski. I mostly hike on weekends."),
        ],
        gold=["lives in Denver", "loves the mountains", "hikes on weekends", "does not ski"],
        never=["Vail", "Breckenridge", "Rockies"],
        current={"lives_in": "Denver"},
    ),
    Chat(
        turns=[
            ("user", "I'm Jonas. I'm a freelance photographer based in Berlin."),
            (
                "assistant",
                "Hi Jonas! Berlin has a lively photography scene. Do you specialise in a "
                "particular kind of photography?",
            ),
            ("user", "Weddings mostly, and I shoot on a Sony A7 IV."),
        ],
        gold=["name Jonas", "works as freelance photographer", "lives in Berlin"],
        never=["photography scene"],
    ),
    Chat(
        turns=[
            (
                "user",
                "I don't like horror movies. I'm more into romantic comedies and documentaries.",
            ),
            (
                "assistant",
                "Some great picks: *When Harry Met Sally*, *Crazy Rich Asians*, and the "
                "documentary *My Octopus Teacher*. Each is under two hours.",
            ),
        ],
        gold=["dislikes horror movies", "likes romantic comedies", "likes documentaries"],
        never=["Harry", "Octopus", "Crazy Rich"],
    ),
    Chat(
        turns=[
            ("user", "what's the capital of australia?"),
            ("assistant", "The capital of Australia is Canberra, not Sydney as many people think."),
            ("user", "oh right. i always forget that 😅"),
            ("assistant", "It's a common mix-up! Canberra was chosen as a compromise in 1908."),
        ],
        gold=[],
        never=["Canberra", "Sydney", "compromise"],
    ),
    Chat(
        turns=[
            (
                "user",
                "I'm training for the Berlin marathon in September. My goal is under 4 hours.",
            ),
            (
                "assistant",
                "A sub-4 marathon means about 5:41 per km. A 16-week plan with one long "
                "run per week works for most runners. How many km do you run per week now?",
            ),
            ("user", "About 30 km a week. I have a knee injury from last year though."),
        ],
        gold=["training for the Berlin marathon", "runs 30 km a week", "knee injury"],
        never=["5:41", "16-week"],
    ),
    Chat(
        turns=[
            ("user", "I've been a vegan for five years and I have celiac disease."),
            (
                "assistant",
                "That combination takes planning! Quinoa, buckwheat and certified "
                "gluten-free oats are safe staples. Would you like a weekly meal plan?",
            ),
            ("user", "Yes. Also I'm not a morning person, so no early breakfasts."),
        ],
        gold=["vegan", "celiac disease"],
        never=["Quinoa", "buckwheat", "oats"],
    ),
    Chat(
        turns=[
            ("user", "I just bought a house in Utrecht! We get the keys on March 15."),
            (
                "assistant",
                "Congratulations on your new home! Here's a moving checklist: change your "
                "address, set up utilities, and take meter readings on the first day.",
            ),
            ("user", "Thanks! My partner Sam is handling the utilities."),
        ],
        gold=["bought a house in Utrecht", "partner Sam"],
        never=["meter readings", "checklist"],
    ),
    Chat(
        turns=[
            ("user", "I moved to Porto last year for a job at a biotech startup."),
            (
                "assistant",
                "Porto is a lovely city, and the biotech scene there is growing fast. What do "
                "you do at the startup? Many teams there hire for lab automation.",
            ),
            ("user", "I'm a lab technician. Big news though: I joined a bank as a team lead!"),
            ("assistant", "Congratulations on the new role! Banks often offer good training."),
        ],
        gold=[
            "lives in Porto",
            "works at a biotech startup",
            "works as a lab technician",
            "works at a bank",
            "works as a team lead",
        ],
        never=["lab automation", "training", "Porto for"],
        current={"lives_in": "Porto", "works_at": "a bank", "works_as": "team lead"},
    ),
    Chat(
        turns=[
            ("user", "I drive a 2015 Honda Civic, how often should I change the oil?"),
            (
                "assistant",
                "For a 2015 Civic, Honda's Maintenance Minder usually asks for an oil change "
                "every 7,500 to 10,000 miles. Do you drive mostly in the city? Short trips "
                "wear oil faster.",
            ),
            ("user", "Mostly city. I have a golden retriever named Max, can he ride in the back?"),
            (
                "assistant",
                "Yes, with a crash-tested harness or crate. Many owners use a back-seat cover.",
            ),
        ],
        gold=["drives a 2015 Honda Civic", "has a retriever named Max"],
        never=["Maintenance Minder", "harness", "crate", "seat cover"],
    ),
    Chat(
        turns=[
            ("user", "Back from the marsh! I've counted 27 bird species so far this year."),
            (
                "assistant",
                "Great start! Spring migration should add warblers and swallows. Keep an eBird "
                "checklist so you can compare years.",
            ),
            ("user", "Update: I've counted 32 bird species now, including a kingfisher."),
        ],
        gold=["count of bird species 27", "count of bird species 32"],
        never=["warblers", "swallows", "eBird"],
        current={"tally_bird_species": "32"},
    ),
    Chat(
        turns=[
            (
                "user",
                "I work night shifts as a security guard, so I sleep until noon. Can you "
                "suggest a workout I can do in the afternoon?",
            ),
            (
                "assistant",
                "Sure! Bodyweight circuits work well: squats, push-ups and planks. Do you have "
                "any injuries I should know about?",
            ),
            ("user", "I'm recovering from knee surgery, so nothing with jumping."),
            (
                "assistant",
                "Understood. Swimming and upper-body work are gentle on the knee. A walk with "
                "your dog could count too.",
            ),
            ("user", "Sadly my dog Biscuit passed away last month."),
        ],
        gold=[
            "works as security guard",
            "recovering from knee surgery",
            "no longer has a dog named Biscuit",
        ],
        never=["Bodyweight", "Swimming", "jumping"],
    ),
    Chat(
        turns=[
            ("user", "We're a family of four: my kids are 5 and 8."),
            (
                "assistant",
                "Lovely ages! At 5 and 8 kids enjoy board games together. Would you like some "
                "ideas for a family game night?",
            ),
            ("user", "Sure. Also my wife and I are expecting, so we need ideas for a baby too."),
            ("assistant", "Congratulations! Soft picture books are a great start."),
            ("user", "I switched from iPhone to Android last summer, so apps must run on it."),
            ("user", "I have two sisters and a brother, they visit us a lot."),
        ],
        gold=[
            "has 2 children",
            "has a child aged 5",
            "has a child aged 8",
            "is expecting a baby",
            "no longer prefers iPhone",
            "prefers Android",
            "has 2 sisters",
            "has one brother",
        ],
        never=["board games", "picture books", "game night"],
    ),
    Chat(
        turns=[
            ("user", "I'm a nurse and I'll start nights next week."),
            (
                "assistant",
                "Night shifts can be tough. Blackout curtains and a fixed sleep schedule "
                "help a lot. Will you work weekends too?",
            ),
            ("user", "I love cooking, my favorite dish is ramen. My favorite TV show is Lost."),
            ("user", "I drive a Civic to work."),
            ("user", "Update: I sold my Civic and bought a Tesla."),
            ("user", "I gave up on Spanish, and I quit tennis: my knee can't take it."),
            ("user", "I graduated from NYU last May."),
        ],
        gold=[
            "works as nurse",
            "likes cooking",
            "favorite dish is ramen",
            "favorite TV show is Lost",
            "drives a Civic",
            "no longer drives Civic",
            "no longer owns Civic",
            "drives a Tesla",
            "bought a Tesla",
            "no longer learning Spanish",
            "no longer plays tennis",
            "graduated from NYU",
            "no longer works as student",
            "no longer works at NYU",
        ],
        never=["nights", "Blackout", "weekends"],
    ),
]
